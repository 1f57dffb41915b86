-- The CDC relay (tandem-cdc): the same tables as PostgreSQL's V15 (which explains them), with the
-- type mapping of V1. The CDC relay itself runs on PostgreSQL only so far (docs/cdc.md); the tables
-- exist on both so that the schemas stay equal.

CREATE TABLE tandem_cdc_offset (
    store_name   VARCHAR(255) NOT NULL,
    offset_key   VARCHAR(512) NOT NULL,
    offset_value TEXT,
    updated_at   DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    CONSTRAINT tandem_cdc_offset_pkey PRIMARY KEY (store_name, offset_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE tandem_cdc_relay (
    slot_name         VARCHAR(255) NOT NULL,
    relay_id          VARCHAR(255) NOT NULL,
    host              VARCHAR(255) NOT NULL,
    started_at        DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    heartbeat_at      DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    last_published_at DATETIME(6),
    last_flushed_at   DATETIME(6),
    published_count   BIGINT       NOT NULL DEFAULT 0,
    CONSTRAINT tandem_cdc_relay_pkey PRIMARY KEY (slot_name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE tandem_cdc_heartbeat (
    id        BIGINT       NOT NULL AUTO_INCREMENT,
    slot_name VARCHAR(255) NOT NULL,
    beat_at   DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    CONSTRAINT tandem_cdc_heartbeat_pkey PRIMARY KEY (id),
    INDEX tandem_cdc_heartbeat_slot (slot_name, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
