-- Moving an ordered consumer past versions that will never arrive (an event skipped at the
-- producer with `tandem outbox skip`), with the record of who did it and why; and the version a
-- position started from. The same as PostgreSQL's V14.

-- Every `tandem inbox advance` / InboxOperations.advance: the consumer's position for one
-- aggregate moved from from_version to to_version without applying the versions between. The
-- ordering guard reads it to drop a skipped version that arrives after all. Never deleted by
-- Tandem (retention does not touch it).
CREATE TABLE tandem_inbox_advance (
    id                BIGINT       NOT NULL AUTO_INCREMENT,
    consumer          VARCHAR(200) NOT NULL,
    aggregate_type    VARCHAR(255) NOT NULL,
    aggregate_id      VARCHAR(255) NOT NULL,
    from_version      BIGINT       NOT NULL,
    to_version        BIGINT       NOT NULL,
    reason            TEXT         NOT NULL,
    advanced_by       VARCHAR(255) NOT NULL,
    advanced_at       DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    CONSTRAINT tandem_inbox_advance_pkey PRIMARY KEY (id),
    CONSTRAINT tandem_inbox_advance_forward CHECK (to_version > from_version AND from_version >= 0),
    CONSTRAINT tandem_inbox_advance_reason CHECK (CHAR_LENGTH(TRIM(reason)) > 0)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE INDEX tandem_inbox_advance_aggregate
    ON tandem_inbox_advance (consumer, aggregate_type, aggregate_id, to_version);

-- The last_version a position was created at: 0, or the version before the first one seen under
-- startAtFirstSeenVersion (see PostgreSQL's V14).
ALTER TABLE tandem_inbox_position ADD COLUMN start_version BIGINT NOT NULL DEFAULT 0;
