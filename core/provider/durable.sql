-- The durable provider's ledger: what a real payment provider would know.
-- Times are UTC text with milliseconds, as in the outbox.

CREATE TABLE IF NOT EXISTS ProviderDeliveries (
    Id             INTEGER PRIMARY KEY,
    IdempotencyKey TEXT    NOT NULL,
    Caller         TEXT    NOT NULL, -- the worker that delivered the charge
    AtUtc          TEXT    NOT NULL,
    Result         TEXT    NOT NULL CHECK (Result IN ('effect', 'duplicate', 'failed'))
) STRICT;

-- No UNIQUE on IdempotencyKey: one effect per key is the deduplication's job,
-- and a test that counts effects per key must be able to see it fail.
CREATE TABLE IF NOT EXISTS ProviderEffects (
    Id             INTEGER PRIMARY KEY,
    IdempotencyKey TEXT    NOT NULL,
    TransactionId  TEXT    NOT NULL,
    DeliveryId     INTEGER NOT NULL REFERENCES ProviderDeliveries (Id),
    AtUtc          TEXT    NOT NULL
) STRICT;

CREATE INDEX IF NOT EXISTS IX_ProviderEffects_Key ON ProviderEffects (IdempotencyKey);
