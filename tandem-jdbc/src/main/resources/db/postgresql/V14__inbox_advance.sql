-- Moving an ordered consumer past versions that will never arrive (an event skipped at the
-- producer with `tandem outbox skip`), with the record of who did it and why; and the version a
-- position started from, so that the ordering guard can tell an event from before the start from
-- a conflicting one.

-- Every `tandem inbox advance` / InboxOperations.advance: the consumer's position for one
-- aggregate moved from from_version to to_version without applying the versions between. The
-- ordering guard reads it to drop a skipped version that arrives after all. Never deleted by
-- Tandem (retention does not touch it).
CREATE TABLE tandem_inbox_advance (
    id                bigint      GENERATED ALWAYS AS IDENTITY,
    consumer          text        NOT NULL,
    aggregate_type    text        NOT NULL,
    aggregate_id      text        NOT NULL,
    from_version      bigint      NOT NULL,
    to_version        bigint      NOT NULL,
    reason            text        NOT NULL,
    advanced_by       text        NOT NULL,
    advanced_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tandem_inbox_advance_pkey PRIMARY KEY (id),
    CONSTRAINT tandem_inbox_advance_forward CHECK (to_version > from_version AND from_version >= 0),
    CONSTRAINT tandem_inbox_advance_reason CHECK (length(btrim(reason)) > 0)
);

CREATE INDEX tandem_inbox_advance_aggregate
    ON tandem_inbox_advance (consumer, aggregate_type, aggregate_id, to_version);

-- The last_version a position was created at: 0, or the version before the first one seen under
-- startAtFirstSeenVersion. A version at or below it, never seen, is history from before the
-- consumer joined (dropped); above it, never seen but at or below last_version, it is a conflict.
ALTER TABLE tandem_inbox_position ADD COLUMN start_version bigint NOT NULL DEFAULT 0;
