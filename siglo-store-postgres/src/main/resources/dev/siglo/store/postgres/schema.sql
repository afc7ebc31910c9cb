-- Siglo idempotency records. ${table} and ${index} are replaced by validated, quoted identifiers
-- (apply this file with your migration tool after replacing them, or let the store create it).
-- state: 'P' in progress (owner_token, lease_until_ms), 'C' completed (outcome, retain_until_ms);
-- a released claim is 'P' without owner_token (it acts as absent, keeping deliveries and
-- takeovers for the next claim, until retain_until_ms).
-- Times are epoch milliseconds, compared with the database clock (clock_timestamp()).
CREATE TABLE IF NOT EXISTS ${table} (
  idem_key        TEXT     PRIMARY KEY,
  state           CHAR(1)  NOT NULL CHECK (state IN ('P', 'C')),
  owner_token     TEXT,
  fingerprint     TEXT,
  lease_until_ms  BIGINT,
  retain_until_ms BIGINT,
  outcome         BYTEA,
  deliveries      INT      NOT NULL DEFAULT 0,
  takeovers       INT      NOT NULL DEFAULT 0
);
-- tables created before the delivery counts existed
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS deliveries INT NOT NULL DEFAULT 0;
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS takeovers INT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS ${index} ON ${table} ((COALESCE(retain_until_ms, lease_until_ms)));
