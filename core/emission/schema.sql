-- outboxlab governance schema: the governance outbox, its transition log and the host's remediation log.
-- Times are UTC text with milliseconds (2026-01-16T09:00:00.201Z): fixed width, so text order is time order.

-- LabInfo, the marker that this is a lab database, is created by core/sqlitedb.

-- One governance emission waiting to reach its provider. Payload may hold protected
-- content (prompts, credentials): the lab never prints it and alerts never carry it.
CREATE TABLE IF NOT EXISTS GovernanceOutboxEntries (
    Id                 INTEGER PRIMARY KEY,
    EntryKey           TEXT    NOT NULL UNIQUE,
    EventType          TEXT    NOT NULL,
    CorrelationId      TEXT    NOT NULL,
    DecisionReceiptId  TEXT    NOT NULL,
    Provider           TEXT    NOT NULL,
    Region             TEXT    NOT NULL,
    Tenant             TEXT    NOT NULL,
    Workload           TEXT    NOT NULL,
    Payload            TEXT    NOT NULL,
    Status             TEXT    NOT NULL DEFAULT 'Pending'
                       CHECK (Status IN ('Pending', 'Deferred', 'Failed', 'RetryableFailure', 'Delivered', 'DeadLettered',
                                         'Quarantined')),
    RetryCount         INTEGER NOT NULL DEFAULT 0 CHECK (RetryCount >= 0), -- failed attempts; deferrals never count
    MaxRetryCount      INTEGER NOT NULL DEFAULT 5, -- legacy, kept for persisted-record compatibility; the drain ignores it
    NextRetryAtUtc     TEXT,    -- not due before this time; NULL on terminal rows
    LastErrorCode      TEXT,    -- the last failed attempt's provider-neutral code
    LastErrorMessage   TEXT,
    ReasonCode         TEXT,    -- terminal reason: the threshold's stable code, or the provider's own
    ReasonMessage      TEXT,
    ClaimOwner         TEXT,    -- claim/lease drain: who owns the entry until ClaimLeaseUntilUtc
    ClaimLeaseUntilUtc TEXT,
    ClaimToken         INTEGER NOT NULL DEFAULT 0, -- fencing token, +1 on every claim, never reset
    CreatedAtUtc       TEXT    NOT NULL,
    UpdatedAtUtc       TEXT    NOT NULL,
    DeliveredAtUtc     TEXT,
    DeadLetteredAtUtc  TEXT,
    ReplayOfEntryId    INTEGER REFERENCES GovernanceOutboxEntries (Id) -- a host replay points at the original it replays
) STRICT;

CREATE INDEX IF NOT EXISTS IX_GovernanceOutboxEntries_Due
    ON GovernanceOutboxEntries (CreatedAtUtc, Id)
    WHERE Status IN ('Pending', 'Deferred', 'Failed', 'RetryableFailure');

-- Every transition a drain tried to persist, applied or refused, in the same transaction.
CREATE TABLE IF NOT EXISTS GovernanceOutboxTransitions (
    Id         INTEGER PRIMARY KEY,
    AtUtc      TEXT    NOT NULL,
    EntryId    INTEGER NOT NULL REFERENCES GovernanceOutboxEntries (Id),
    Actor      TEXT    NOT NULL,
    ClaimToken INTEGER NOT NULL, -- the writer's token; 0 for a write keyed by Id alone
    FromStatus TEXT    NOT NULL,
    ToStatus   TEXT    NOT NULL,
    RetryCount INTEGER NOT NULL,
    ReasonCode TEXT,
    Outcome    TEXT    NOT NULL CHECK (Outcome IN ('applied', 'refused'))
) STRICT;

-- Host-owned decisions on an entry (quarantine, manual review, replay): who, why,
-- approved by whom, for which incident window, and what became of the retry history.
CREATE TABLE IF NOT EXISTS GovernanceRemediations (
    Id               INTEGER PRIMARY KEY,
    AtUtc            TEXT    NOT NULL,
    EntryId          INTEGER NOT NULL REFERENCES GovernanceOutboxEntries (Id),
    Action           TEXT    NOT NULL,
    Reviewer         TEXT    NOT NULL CHECK (Reviewer <> ''),
    Reason           TEXT    NOT NULL CHECK (Reason <> ''),
    Approval         TEXT    NOT NULL CHECK (Approval <> ''),
    Ticket           TEXT    NOT NULL CHECK (Ticket <> ''),
    AffectedFromUtc  TEXT,
    AffectedToUtc    TEXT,
    RetryCountBefore INTEGER NOT NULL,
    RetryCountAfter  INTEGER NOT NULL,
    ReplayEntryId    INTEGER REFERENCES GovernanceOutboxEntries (Id),
    Cause            TEXT,    -- the runbook's class of the repeated failure (a replay must record one)
    Fix              TEXT     -- what was corrected before the replay (a replay must record it)
) STRICT;

-- The host's review items: one opened per dead-letter, closed only on evidence.
CREATE TABLE IF NOT EXISTS GovernanceIncidents (
    Id              INTEGER PRIMARY KEY,
    EntryId         INTEGER NOT NULL UNIQUE REFERENCES GovernanceOutboxEntries (Id),
    OpenedAtUtc     TEXT    NOT NULL,
    ReasonCode      TEXT    NOT NULL,
    Status          TEXT    NOT NULL DEFAULT 'Open' CHECK (Status IN ('Open', 'Closed')),
    ClosedAtUtc     TEXT,
    ClosedBy        TEXT,
    ProviderReceipt TEXT    -- the provider-side receipt that justified closing it
) STRICT;
