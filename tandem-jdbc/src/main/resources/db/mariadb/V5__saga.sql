-- Tandem sagas (MariaDB 10.6+ / MySQL 8): the same tables as PostgreSQL's V6, with the type
-- mapping explained in V1.

CREATE TABLE tandem_saga (
    saga_id        CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
    saga_type      VARCHAR(255) NOT NULL,
    status         VARCHAR(16) CHARACTER SET ascii NOT NULL,
    step_index     INT          NOT NULL,
    attempt        INT          NOT NULL,
    pending        LONGTEXT     NOT NULL DEFAULT ('[]'),
    data           LONGTEXT     NOT NULL,
    version        BIGINT       NOT NULL,
    wakeup_at      DATETIME(6),
    deadline_at    DATETIME(6),
    last_error     TEXT,
    started_at     DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    updated_at     DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    ended_at       DATETIME(6),
    CONSTRAINT tandem_saga_pkey PRIMARY KEY (saga_id),
    CONSTRAINT tandem_saga_status
        CHECK (status IN ('RUNNING', 'COMPENSATING', 'COMPLETED', 'COMPENSATED', 'STUCK')),
    INDEX tandem_saga_wakeup (wakeup_at),
    INDEX tandem_saga_listing (saga_type, status, started_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE tandem_saga_step (
    saga_id        CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
    seq            INT          NOT NULL,
    step           VARCHAR(255) NOT NULL,
    step_index     INT          NOT NULL,
    kind           VARCHAR(16) CHARACTER SET ascii NOT NULL,
    attempt        INT          NOT NULL,
    command_id     CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
    command_type   VARCHAR(255) NOT NULL,
    outcome        VARCHAR(16) CHARACTER SET ascii NOT NULL,
    reply_type     VARCHAR(255),
    reply          LONGTEXT,
    started_at     DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    ended_at       DATETIME(6),
    CONSTRAINT tandem_saga_step_pkey PRIMARY KEY (saga_id, seq),
    CONSTRAINT tandem_saga_step_kind CHECK (kind IN ('FORWARD', 'COMPENSATION'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE tandem_saga_participation (
    participant    VARCHAR(200) NOT NULL,
    saga_id        CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
    step           VARCHAR(255) NOT NULL,
    state          VARCHAR(16) CHARACTER SET ascii NOT NULL,
    reply_type     VARCHAR(255) NOT NULL,
    reply          LONGTEXT     NOT NULL,
    updated_at     DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    CONSTRAINT tandem_saga_participation_pkey PRIMARY KEY (participant, saga_id, step)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
