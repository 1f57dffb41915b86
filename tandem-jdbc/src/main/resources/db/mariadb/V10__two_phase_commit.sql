-- Two-phase commit (tandem-xa): the coordinator's decision log and the operator's resolutions, the
-- same tables as PostgreSQL's V12 (which explains them), with the type mapping of V1. MariaDB has
-- no notifications, so nothing stops an outbox insert from preparing.

CREATE TABLE tandem_xa_decision (
    gtrid        VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    node_id      VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    decision     VARCHAR(8)  CHARACTER SET ascii NOT NULL,
    participants TEXT        NOT NULL,
    decided_by   VARCHAR(255) NOT NULL,
    decided_at   DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    heuristic    TEXT,
    CONSTRAINT tandem_xa_decision_pkey PRIMARY KEY (gtrid),
    CONSTRAINT tandem_xa_decision_decision CHECK (decision IN ('COMMIT', 'ROLLBACK')),
    CONSTRAINT tandem_xa_decision_gtrid CHECK (OCTET_LENGTH(gtrid) BETWEEN 1 AND 64),
    INDEX tandem_xa_decision_node (node_id, decided_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE tandem_xa_resolution (
    id            BIGINT       NOT NULL AUTO_INCREMENT,
    gtrid         VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    action        VARCHAR(8)   CHARACTER SET ascii NOT NULL,
    logged_before VARCHAR(8)   CHARACTER SET ascii,
    forced        BOOLEAN      NOT NULL DEFAULT FALSE,
    branches      TEXT         NOT NULL,
    operator      VARCHAR(255) NOT NULL,
    reason        TEXT,
    resolved_at   DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    CONSTRAINT tandem_xa_resolution_pkey PRIMARY KEY (id),
    CONSTRAINT tandem_xa_resolution_action CHECK (action IN ('COMMIT', 'ROLLBACK'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
