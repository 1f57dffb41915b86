-- Partition leases for the relay (PostgreSQL).
--
-- Every event belongs to one of 64 partitions, derived from its aggregate. A relay instance owns
-- a set of partitions through leases with a fencing epoch; only the owner publishes a
-- partition's events, one batch at a time, so events of one aggregate are published in order
-- however many relay instances run. Rows are no longer claimed one by one: the relay reads due
-- rows of its partitions and writes each row once, when the broker has acknowledged it.

ALTER TABLE tandem_outbox DROP COLUMN partition_no;
ALTER TABLE tandem_outbox ADD COLUMN partition_no integer NOT NULL
    GENERATED ALWAYS AS ((hashtextextended(aggregate_type || ':' || aggregate_id, 0) & 63)::integer) STORED;
ALTER TABLE tandem_outbox DROP COLUMN lease_until;
ALTER TABLE tandem_outbox RENAME COLUMN claimed_by TO published_by;
ALTER TABLE tandem_outbox ADD COLUMN skipped_at timestamptz;
ALTER TABLE tandem_outbox ADD COLUMN skip_reason text;
ALTER TABLE tandem_outbox ADD CONSTRAINT tandem_outbox_skip_has_reason
    CHECK (skipped_at IS NULL OR skip_reason IS NOT NULL);

-- Rows still to publish, in scan order. Stays small however long published history grows.
DROP INDEX tandem_outbox_unpublished;
CREATE INDEX tandem_outbox_pending ON tandem_outbox (id)
    WHERE published_at IS NULL AND quarantined_at IS NULL AND skipped_at IS NULL;
-- Earlier unpublished versions of an aggregate (head-of-line check of the claim).
CREATE INDEX tandem_outbox_pending_by_aggregate
    ON tandem_outbox (aggregate_type, aggregate_id, aggregate_version)
    WHERE published_at IS NULL AND skipped_at IS NULL;
-- Retention scans published rows by age.
CREATE INDEX tandem_outbox_published_at ON tandem_outbox (published_at)
    WHERE published_at IS NOT NULL;

CREATE TABLE tandem_relay_partition (
    partition_no integer PRIMARY KEY,
    owner        text,
    epoch        bigint      NOT NULL DEFAULT 0,
    lease_until  timestamptz,
    acquired_at  timestamptz,
    CONSTRAINT tandem_relay_partition_range CHECK (partition_no BETWEEN 0 AND 63)
);
INSERT INTO tandem_relay_partition (partition_no) SELECT generate_series(0, 63);

CREATE TABLE tandem_relay_instance (
    relay_id     text PRIMARY KEY,
    host         text,
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now()
);
