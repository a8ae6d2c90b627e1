-- outboxlab schema: the business table (Payments), the outbox, and an audit log.
-- Times are UTC text with milliseconds (2026-01-16T09:00:00.201Z): fixed width, so text order is time order.

-- LabInfo, the marker that this is a lab database, is created by core/sqlitedb.

-- Payments has a surrogate key, not a unique PaymentKey: "one payment per key" is
-- something the lab measures, not something the schema makes impossible.
CREATE TABLE IF NOT EXISTS Payments (
    Id                    INTEGER PRIMARY KEY,
    PaymentKey            TEXT    NOT NULL,
    AmountCents           INTEGER NOT NULL CHECK (AmountCents > 0),
    Status                TEXT    NOT NULL CHECK (Status IN ('PendingConfirmation', 'Paid', 'Failed')),
    ProviderTransactionId TEXT,
    CreatedAtUtc          TEXT    NOT NULL,
    UpdatedAtUtc          TEXT    NOT NULL
) STRICT;

CREATE INDEX IF NOT EXISTS IX_Payments_PaymentKey ON Payments (PaymentKey);

CREATE TABLE IF NOT EXISTS OutboxMessages (
    Id                INTEGER PRIMARY KEY,
    MessageKey        TEXT    NOT NULL,
    Type              TEXT    NOT NULL,
    Payload           TEXT    NOT NULL DEFAULT '{}',
    Status            TEXT    NOT NULL DEFAULT 'Pending'
                      CHECK (Status IN ('Pending', 'Processing', 'Processed', 'DeadLettered')),
    AttemptCount      INTEGER NOT NULL DEFAULT 0 CHECK (AttemptCount >= 0),
    MaxAttempts       INTEGER CHECK (MaxAttempts IS NULL OR MaxAttempts > 0), -- NULL: no ceiling
    NextAttemptUtc    TEXT,    -- backoff gate: not claimable before this time
    LastError         TEXT,
    LockedBy          TEXT,
    LockedUntilUtc    TEXT,    -- lease: another worker may claim once this has passed
    ClaimToken        INTEGER NOT NULL DEFAULT 0, -- fencing token, +1 on every claim, never reset
    CreatedAtUtc      TEXT    NOT NULL,
    ProcessedAtUtc    TEXT,
    DeadLetteredAtUtc TEXT
) STRICT;

-- The claim reads only live rows in creation order; a partial index keeps that
-- cheap however many Processed and DeadLettered rows pile up.
CREATE INDEX IF NOT EXISTS IX_OutboxMessages_Claimable
    ON OutboxMessages (CreatedAtUtc, Id)
    WHERE Status IN ('Pending', 'Processing');

CREATE TABLE IF NOT EXISTS AuditLog (
    Id        INTEGER PRIMARY KEY,
    AtUtc     TEXT    NOT NULL,
    Actor     TEXT    NOT NULL,
    Action    TEXT    NOT NULL,
    MessageId INTEGER,
    Detail    TEXT    NOT NULL DEFAULT ''
) STRICT;
