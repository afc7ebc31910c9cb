-- Siglo idempotency records, partitioned by expiry (PostgresStoreConfig.Builder#partitioned).
-- ${table} and ${keyIndex} are replaced by validated, quoted identifiers (apply this file with
-- your migration tool after replacing them, or let the store create it).
-- Columns and states as in schema.sql. The partition key is the row's expiry,
-- COALESCE(retain_until_ms, lease_until_ms): a completion or a renewal moves its row to the
-- partition of its new expiry. The store creates the partitions (${table}_p<start>, one per
-- partition width) ahead of time and drops those whose every row expired more than the purge
-- grace ago, instead of deleting rows (its role needs CREATE on the schema, and owns them).
-- There is no primary key (a unique index on a partitioned table must contain the partition key):
-- claims of one key are serialized by a transaction-scoped advisory lock on it instead.
CREATE TABLE IF NOT EXISTS ${table} (
  idem_key        TEXT     NOT NULL,
  state           CHAR(1)  NOT NULL CHECK (state IN ('P', 'C')),
  owner_token     TEXT,
  fingerprint     TEXT,
  lease_until_ms  BIGINT,
  retain_until_ms BIGINT,
  outcome         BYTEA,
  deliveries      INT      NOT NULL DEFAULT 0,
  takeovers       INT      NOT NULL DEFAULT 0
) PARTITION BY RANGE ((COALESCE(retain_until_ms, lease_until_ms)));
CREATE INDEX IF NOT EXISTS ${keyIndex} ON ${table} (idem_key);
