-- Tandem outbox (MariaDB 10.6+ / MySQL 8). The same table as PostgreSQL reaches after its
-- V1..V3, created in its final shape: MariaDB starts where PostgreSQL arrived, so its migrations
-- have no history to replay. Event columns are immutable after insert; only delivery columns
-- change. Unpublished rows cannot be deleted. Both rules are enforced by the triggers below.
--
-- Types, against PostgreSQL's:
--   uuid        -> CHAR(36) ascii, case-insensitive like uuid equality, format checked;
--                  the JDBC driver binds and reads java.util.UUID as this text.
--   jsonb       -> LONGTEXT with CHECK (JSON_VALID(...)); stored as written, not normalised.
--   timestamptz -> DATETIME(6) holding UTC: every timestamp the database sets comes from
--                  UTC_TIMESTAMP(6), and MariaDbDialect binds and reads instants as UTC wall time,
--                  whatever the session or JVM time zone.
--   text        -> VARCHAR(255) where indexed (names are at most 255 characters by default,
--                  EventLimits), TEXT otherwise; utf8mb4_bin compares them byte for byte as
--                  PostgreSQL's deterministic collation does.
CREATE TABLE tandem_outbox (
    id                BIGINT        NOT NULL AUTO_INCREMENT,
    event_id          CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
    aggregate_type    VARCHAR(255)  NOT NULL,
    aggregate_id      VARCHAR(255)  NOT NULL,
    aggregate_version BIGINT        NOT NULL,
    event_type        VARCHAR(255)  NOT NULL,
    schema_version    INT           NOT NULL DEFAULT 1,
    payload           LONGTEXT      NOT NULL,
    headers           LONGTEXT      NOT NULL DEFAULT ('{}'),
    occurred_at       DATETIME(6)   NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    created_at        DATETIME(6)   NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    -- delivery columns
    attempts          INT           NOT NULL DEFAULT 0,
    -- PostgreSQL's '-infinity': due at once.
    next_attempt_at   DATETIME(6)   NOT NULL DEFAULT '1000-01-01 00:00:00.000000',
    published_by      VARCHAR(255),
    published_at      DATETIME(6),
    last_error        TEXT,
    error_class       VARCHAR(255),
    quarantined_at    DATETIME(6),
    -- One of Dialect.PARTITIONS (64) relay partitions, derived from the aggregate. The hash
    -- differs from PostgreSQL's (hashtextextended); only its stability within a database matters.
    partition_no      INT AS (CRC32(CONCAT(aggregate_type, ':', aggregate_id)) % 64) STORED,
    skipped_at        DATETIME(6),
    skip_reason       TEXT,
    PRIMARY KEY (id),
    CONSTRAINT tandem_outbox_event_id_key UNIQUE (event_id),
    CONSTRAINT tandem_outbox_aggregate_version_key
        UNIQUE (aggregate_type, aggregate_id, aggregate_version),
    CONSTRAINT tandem_outbox_event_id_uuid CHECK (
        event_id REGEXP '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'),
    CONSTRAINT tandem_outbox_names_not_blank CHECK (
        TRIM(aggregate_type) <> '' AND TRIM(aggregate_id) <> '' AND TRIM(event_type) <> ''),
    CONSTRAINT tandem_outbox_version_positive CHECK (aggregate_version >= 1),
    CONSTRAINT tandem_outbox_schema_version_positive CHECK (schema_version >= 1),
    CONSTRAINT tandem_outbox_payload_json CHECK (JSON_VALID(payload)),
    CONSTRAINT tandem_outbox_headers_object CHECK (
        JSON_VALID(headers) AND JSON_TYPE(headers) = 'OBJECT'),
    CONSTRAINT tandem_outbox_skip_has_reason CHECK (skipped_at IS NULL OR skip_reason IS NOT NULL),
    -- MariaDB has no partial indexes. These keep PostgreSQL's intent, that the relay's work does
    -- not grow with published history: the leading IS NULL columns put every row still to
    -- publish in one contiguous stretch of the index, in id order, so the claim reads only that
    -- stretch (published rows sort elsewhere, by their published_at).
    --
    -- Rows still to publish, in scan order (PostgreSQL: tandem_outbox_pending ... WHERE
    -- published_at IS NULL AND quarantined_at IS NULL AND skipped_at IS NULL). Its published_at
    -- prefix also serves retention's range on published_at (PostgreSQL's
    -- tandem_outbox_published_at).
    INDEX tandem_outbox_pending (published_at, quarantined_at, skipped_at, id),
    -- Earlier unpublished versions of an aggregate, for the claim's head-of-line check
    -- (PostgreSQL: ... (aggregate_type, aggregate_id, aggregate_version) WHERE published_at IS
    -- NULL AND skipped_at IS NULL).
    INDEX tandem_outbox_pending_by_aggregate
        (aggregate_type, aggregate_id, published_at, skipped_at, aggregate_version)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
  COMMENT = 'Tandem transactional outbox: one immutable event per row, published at least once by the relay';

DELIMITER $$

CREATE TRIGGER tandem_outbox_guard_update BEFORE UPDATE ON tandem_outbox
FOR EACH ROW
BEGIN
    DECLARE message VARCHAR(128);
    -- Compared as bytes: utf8mb4_bin ignores trailing spaces, the guard must not.
    IF NOT (NEW.id <=> OLD.id
        AND NEW.event_id <=> OLD.event_id
        AND CAST(NEW.aggregate_type AS BINARY) <=> CAST(OLD.aggregate_type AS BINARY)
        AND CAST(NEW.aggregate_id AS BINARY) <=> CAST(OLD.aggregate_id AS BINARY)
        AND NEW.aggregate_version <=> OLD.aggregate_version
        AND CAST(NEW.event_type AS BINARY) <=> CAST(OLD.event_type AS BINARY)
        AND NEW.schema_version <=> OLD.schema_version
        AND CAST(NEW.payload AS BINARY) <=> CAST(OLD.payload AS BINARY)
        AND CAST(NEW.headers AS BINARY) <=> CAST(OLD.headers AS BINARY)
        AND NEW.occurred_at <=> OLD.occurred_at
        AND NEW.created_at <=> OLD.created_at) THEN
        SET message = CONCAT('tandem_outbox: event columns of event ', OLD.event_id,
                             ' are immutable');
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = message;
    END IF;
END$$

CREATE TRIGGER tandem_outbox_guard_delete BEFORE DELETE ON tandem_outbox
FOR EACH ROW
BEGIN
    DECLARE message VARCHAR(128);
    IF OLD.published_at IS NULL THEN
        SET message = CONCAT('tandem_outbox: event ', OLD.event_id,
                             ' is not published yet and cannot be deleted');
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = message;
    END IF;
END$$

DELIMITER ;
