-- Tandem consumer side (MariaDB 10.6+ / MySQL 8): the ordering guard, parked events and dead
-- letters. The same tables as PostgreSQL's V5, with the type mapping explained in V1.
-- Consumer names are at most 200 characters (the processor checks), which keeps the keys
-- (consumer, aggregate_type, aggregate_id, ...) within InnoDB's 3072 bytes.

-- Ordering guard: the last aggregate_version a consumer applied, per aggregate. Updated in the
-- transaction of the side effect; its row lock serialises two deliveries of one aggregate.
CREATE TABLE tandem_inbox_position (
    consumer          VARCHAR(200) NOT NULL,
    aggregate_type    VARCHAR(255) NOT NULL,
    aggregate_id      VARCHAR(255) NOT NULL,
    last_version      BIGINT       NOT NULL,
    updated_at        DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    CONSTRAINT tandem_inbox_position_pkey PRIMARY KEY (consumer, aggregate_type, aggregate_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Events that arrived before a predecessor: kept durably (the message is acknowledged once its
-- row commits) and applied, in order, as soon as the missing version is applied.
CREATE TABLE tandem_inbox_parked (
    consumer          VARCHAR(200) NOT NULL,
    aggregate_type    VARCHAR(255) NOT NULL,
    aggregate_id      VARCHAR(255) NOT NULL,
    aggregate_version BIGINT       NOT NULL,
    event_id          CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
    event_type        TEXT         NOT NULL,
    schema_version    INT          NOT NULL,
    payload           LONGTEXT     NOT NULL,
    headers           LONGTEXT     NOT NULL,
    occurred_at       DATETIME(6)  NOT NULL,
    origin            TEXT         NOT NULL,
    parked_at         DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    CONSTRAINT tandem_inbox_parked_pkey
        PRIMARY KEY (consumer, aggregate_type, aggregate_id, aggregate_version),
    -- Gap reports look for the oldest parked events of a consumer.
    INDEX tandem_inbox_parked_age (consumer, parked_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Messages a consumer could not apply: undecodable, refused by the handler for good, or still
-- failing after the retry policy's attempts. The raw message is kept for replay; rows are never
-- deleted automatically (status DEAD until an operator replays or discards it).
CREATE TABLE tandem_dead_letter (
    id                BIGINT       NOT NULL AUTO_INCREMENT,
    consumer          VARCHAR(200) NOT NULL,
    status            VARCHAR(16) CHARACTER SET ascii NOT NULL DEFAULT 'DEAD',
    reason_class      VARCHAR(64) CHARACTER SET ascii NOT NULL,
    reason            TEXT         NOT NULL,
    attempts          INT          NOT NULL,
    origin            TEXT         NOT NULL,
    raw_headers       LONGTEXT     NOT NULL,
    raw_body          LONGBLOB     NOT NULL,
    event_id          CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci,
    aggregate_type    VARCHAR(255),
    aggregate_id      VARCHAR(255),
    aggregate_version BIGINT,
    event_type        TEXT,
    -- The decoded event as Tandem's JSON envelope, when the message could be decoded.
    event_json        LONGTEXT,
    dead_at           DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    resolved_at       DATETIME(6),
    CONSTRAINT tandem_dead_letter_pkey PRIMARY KEY (id),
    CONSTRAINT tandem_dead_letter_status CHECK (status IN ('DEAD', 'REPLAYED', 'DISCARDED')),
    INDEX tandem_dead_letter_open (consumer, status, id),
    INDEX tandem_dead_letter_aggregate (consumer, aggregate_type, aggregate_id, status)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
