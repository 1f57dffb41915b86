-- The dashboard's audit log, the same table as PostgreSQL's V16 (which explains it), with the type
-- mapping of V1.
CREATE TABLE tandem_dashboard_action (
    id          BIGINT       NOT NULL AUTO_INCREMENT,
    acted_at    DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    operator    VARCHAR(255) NOT NULL,
    remote      VARCHAR(255) NOT NULL,
    action      VARCHAR(64)  NOT NULL,
    target      VARCHAR(255) NOT NULL,
    outcome     VARCHAR(8)   CHARACTER SET ascii NOT NULL,
    detail      TEXT,
    CONSTRAINT tandem_dashboard_action_pkey PRIMARY KEY (id),
    CONSTRAINT tandem_dashboard_action_outcome CHECK (outcome IN ('DONE', 'FAILED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
