-- The order service's tables. They live in the same file as the log, so a record's business
-- change commits in the same transaction as the consumer's bookkeeping.
CREATE TABLE IF NOT EXISTS Orders (
    Id           INTEGER PRIMARY KEY,
    Status       TEXT    NOT NULL CHECK (Status IN ('Placed', 'Paid', 'Shipped', 'Cancelled')),
    AmountCents  INTEGER NOT NULL CHECK (AmountCents > 0),
    PaidCents    INTEGER NOT NULL DEFAULT 0 CHECK (PaidCents >= 0),
    CreatedAtUtc TEXT    NOT NULL,
    UpdatedAtUtc TEXT    NOT NULL
) STRICT;

-- No foreign key to Orders: a handler that stores what it is given can store a payment for an
-- order that does not exist. That is how an orphan is born, and the lab counts them.
CREATE TABLE IF NOT EXISTS OrderPayments (
    Id            INTEGER PRIMARY KEY,
    OrderId       INTEGER NOT NULL,
    AmountCents   INTEGER NOT NULL CHECK (AmountCents > 0),
    MessageId     TEXT    NOT NULL,
    ReceivedAtUtc TEXT    NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS Shipments (
    Id           INTEGER PRIMARY KEY,
    OrderId      INTEGER NOT NULL,
    MessageId    TEXT    NOT NULL,
    ShippedAtUtc TEXT    NOT NULL
) STRICT;

-- The failure-event listener (customer care): what it heard, once per event, and what it did.
CREATE TABLE IF NOT EXISTS CustomerCareLog (
    Id            INTEGER PRIMARY KEY,
    EventId       INTEGER NOT NULL UNIQUE,
    EventType     TEXT    NOT NULL,
    CorrelationId TEXT    NOT NULL,
    Action        TEXT    NOT NULL,
    AtUtc         TEXT    NOT NULL
) STRICT;
