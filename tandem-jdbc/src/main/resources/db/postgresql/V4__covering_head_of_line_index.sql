-- The claim's head-of-line check (is an earlier version of this aggregate still pending?) must
-- read only pending rows, however much published history the table holds. With the columns it
-- filters on included, PostgreSQL answers it from this small partial index alone (index-only),
-- and never prefers the unique key over all rows, published ones included.
DROP INDEX tandem_outbox_pending_by_aggregate;
CREATE INDEX tandem_outbox_pending_by_aggregate
    ON tandem_outbox (aggregate_type, aggregate_id, aggregate_version)
    INCLUDE (id, quarantined_at, next_attempt_at)
    WHERE published_at IS NULL AND skipped_at IS NULL;
