-- Tandem inbox (MariaDB 10.6+ / MySQL 8): one row per (consumer, event) whose side effect
-- committed. The primary key turns a duplicate delivery into a no-op (INSERT IGNORE: a duplicate
-- waits for the first insert's transaction like PostgreSQL's ON CONFLICT DO NOTHING, then affects
-- no row). INSERT IGNORE would also turn a too-long value into a truncation warning, so the
-- unindexed columns are TEXT and there is no CHECK constraint a row could fail silently.
CREATE TABLE tandem_inbox (
    consumer          VARCHAR(255) NOT NULL,
    event_id          CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
    aggregate_type    TEXT         NOT NULL,
    aggregate_id      TEXT         NOT NULL,
    aggregate_version BIGINT       NOT NULL,
    event_type        TEXT         NOT NULL,
    processed_at      DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    PRIMARY KEY (consumer, event_id),
    -- Retention purges by age.
    INDEX tandem_inbox_processed_at (processed_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
