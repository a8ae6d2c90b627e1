-- outboxlab ordered-messages schema: a keyed, partitioned log, the consumer's position in it,
-- what the consumer applied, what it set aside (dead letters, parked records), what it holds
-- back (poisoned correlation ids, blocked keys, paused partitions) and the failure events it published.
-- Times are UTC text with milliseconds (2026-01-16T09:00:00.201Z): fixed width, so text order is time order.

-- LabInfo, the marker that this is a lab database, is created by core/sqlitedb.

-- The log. A record's place is (Partition, Offset); a redriven copy is a new record at the
-- end of its partition that keeps the producer's MessageId and points back with RedriveOf.
CREATE TABLE IF NOT EXISTS LogRecords (
    Id            INTEGER PRIMARY KEY,
    Partition     INTEGER NOT NULL CHECK (Partition >= 0),
    Offset        INTEGER NOT NULL CHECK (Offset >= 0),
    MessageId     TEXT    NOT NULL,
    MessageKey    TEXT    NOT NULL,
    CorrelationId TEXT    NOT NULL,
    Type          TEXT    NOT NULL,
    Sequence      INTEGER NOT NULL CHECK (Sequence > 0),
    DependsOn     INTEGER CHECK (DependsOn IS NULL OR (DependsOn > 0 AND DependsOn < Sequence)),
    Payload       TEXT    NOT NULL DEFAULT '{}',
    ProducedAtUtc TEXT    NOT NULL,
    RedriveOf     INTEGER REFERENCES LogRecords (Id),
    UNIQUE (Partition, Offset)
) STRICT;

-- The consumer's position in each partition (Id is the partition number), the retry state of
-- the record at its head, and the pause that stops the whole partition (Status Paused, since
-- PausedAtUtc). A consumer claims a partition through the claim engine before it reads the head:
-- ConsumerId holds it until LeaseUntilUtc, every claim moves ClaimToken and counts an attempt of
-- the head record (HeadAttempts), and every move of the partition checks owner and token.
CREATE TABLE IF NOT EXISTS ConsumerPartitions (
    Id             INTEGER PRIMARY KEY CHECK (Id >= 0),
    Status         TEXT    NOT NULL DEFAULT 'Active' CHECK (Status IN ('Active', 'Paused')),
    NextOffset     INTEGER NOT NULL DEFAULT 0 CHECK (NextOffset >= 0),
    HeadAttempts   INTEGER NOT NULL DEFAULT 0 CHECK (HeadAttempts >= 0),
    NextAttemptUtc TEXT,
    LastError      TEXT,
    PausedAtUtc    TEXT,
    ConsumerId     TEXT,
    LeaseUntilUtc  TEXT,
    ClaimToken     INTEGER NOT NULL DEFAULT 0
) STRICT;

-- What the consumer applied, committed with the business change, in the order it applied it (Id):
-- a MessageId is applied once (idempotency) and a record's dependency can be looked up by
-- (CorrelationId, Sequence).
CREATE TABLE IF NOT EXISTS AppliedMessages (
    Id            INTEGER PRIMARY KEY,
    MessageId     TEXT    NOT NULL UNIQUE,
    CorrelationId TEXT    NOT NULL,
    Sequence      INTEGER NOT NULL,
    LogRecordId   INTEGER NOT NULL REFERENCES LogRecords (Id),
    Via           TEXT    NOT NULL CHECK (Via IN ('log', 'replay')),
    AppliedAtUtc  TEXT    NOT NULL,
    UNIQUE (CorrelationId, Sequence)
) STRICT;

-- Records set aside. Nothing is deleted: a naive redrive stamps RedrivenAtUtc, a replay
-- by correlation id stamps ReplayedAtUtc.
CREATE TABLE IF NOT EXISTS DeadLetters (
    Id                INTEGER PRIMARY KEY,
    LogRecordId       INTEGER NOT NULL REFERENCES LogRecords (Id),
    Attempts          INTEGER NOT NULL CHECK (Attempts > 0),
    LastError         TEXT    NOT NULL,
    DeadLetteredAtUtc TEXT    NOT NULL,
    RedrivenAtUtc     TEXT,
    ReplayedAtUtc     TEXT
) STRICT;

CREATE TABLE IF NOT EXISTS ParkedMessages (
    Id            INTEGER PRIMARY KEY,
    LogRecordId   INTEGER NOT NULL REFERENCES LogRecords (Id),
    Reason        TEXT    NOT NULL,
    ParkedAtUtc   TEXT    NOT NULL,
    ReplayedAtUtc TEXT
) STRICT;

-- What the consumer holds back: a poisoned correlation id, a blocked key or a paused partition.
-- At most one live hold per (Scope, Value); a released hold keeps its row.
CREATE TABLE IF NOT EXISTS Holds (
    Id            INTEGER PRIMARY KEY,
    Scope         TEXT    NOT NULL CHECK (Scope IN ('correlation', 'key', 'partition')),
    Value         TEXT    NOT NULL,
    LogRecordId   INTEGER NOT NULL REFERENCES LogRecords (Id),
    Reason        TEXT    NOT NULL,
    HeldAtUtc     TEXT    NOT NULL,
    ReleasedAtUtc TEXT
) STRICT;

CREATE UNIQUE INDEX IF NOT EXISTS UX_Holds_Live ON Holds (Scope, Value) WHERE ReleasedAtUtc IS NULL;

-- Failure events, written in the dead-letter transaction (an outbox) and delivered to a listener.
CREATE TABLE IF NOT EXISTS FailureEvents (
    Id             INTEGER PRIMARY KEY,
    Type           TEXT    NOT NULL,
    CorrelationId  TEXT    NOT NULL,
    LogRecordId    INTEGER NOT NULL REFERENCES LogRecords (Id),
    Reason         TEXT    NOT NULL,
    PublishedAtUtc TEXT    NOT NULL,
    DeliveredAtUtc TEXT
) STRICT;
