-- The claim's head-of-line check (is an earlier version of this aggregate still pending?) must
-- read only pending rows, however much published history the table holds. With the columns it
-- filters on included, PostgreSQL answers it from this small partial index alone (index-only),
-- and never prefers the unique key over all rows, published ones included.
DROP INDEX tandem_outbox_pending_by_aggregate;
CREATE INDEX tandem_outbox_pending_by_aggregate
    ON tandem_outbox (aggregate_type, aggregate_id, aggregate_version)
    INCLUDE (id, quarantined_at, next_attempt_at)
    WHERE published_at IS NULL AND skipped_at IS NULL;

-- The unique key on (aggregate_type, aggregate_id, aggregate_version) spans every row, published
-- or not; led by those columns it looked cheaper to the planner for the same check, and the claim
-- then walked each aggregate's whole history. Led by the version it still enforces uniqueness but
-- no longer competes with the partial index above.
ALTER TABLE tandem_outbox DROP CONSTRAINT tandem_outbox_aggregate_version_key;
ALTER TABLE tandem_outbox ADD CONSTRAINT tandem_outbox_aggregate_version_key
    UNIQUE (aggregate_version, aggregate_type, aggregate_id);
