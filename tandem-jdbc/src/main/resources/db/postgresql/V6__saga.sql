-- Tandem sagas (PostgreSQL): orchestrated saga instances, their step log, and the participants'
-- record of what they did for each saga step.

-- One row per saga instance, in the orchestrator's database. wakeup_at is the next time the
-- instance needs attention without a reply (a step deadline, a retry after backoff, the saga
-- deadline): a timer claims due rows with FOR UPDATE SKIP LOCKED, like any other work.
CREATE TABLE tandem_saga (
    saga_id        uuid        NOT NULL,
    saga_type      text        NOT NULL,
    status         text        NOT NULL,
    step_index     integer     NOT NULL,
    attempt        integer     NOT NULL,
    pending        text        NOT NULL DEFAULT '[]',
    data           text        NOT NULL,
    version        bigint      NOT NULL,
    wakeup_at      timestamptz,
    deadline_at    timestamptz,
    last_error     text,
    started_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    ended_at       timestamptz,
    CONSTRAINT tandem_saga_pkey PRIMARY KEY (saga_id),
    CONSTRAINT tandem_saga_status
        CHECK (status IN ('RUNNING', 'COMPENSATING', 'COMPLETED', 'COMPENSATED', 'STUCK'))
);

CREATE INDEX tandem_saga_wakeup ON tandem_saga (wakeup_at) WHERE wakeup_at IS NOT NULL;
CREATE INDEX tandem_saga_listing ON tandem_saga (saga_type, status, started_at);

-- Every command the orchestrator sent and the reply it got, in order.
CREATE TABLE tandem_saga_step (
    saga_id        uuid        NOT NULL,
    seq            integer     NOT NULL,
    step           text        NOT NULL,
    step_index     integer     NOT NULL,
    kind           text        NOT NULL,
    attempt        integer     NOT NULL,
    command_id     uuid        NOT NULL,
    command_type   text        NOT NULL,
    outcome        text        NOT NULL,
    reply_type     text,
    reply          text,
    started_at     timestamptz NOT NULL DEFAULT now(),
    ended_at       timestamptz,
    CONSTRAINT tandem_saga_step_pkey PRIMARY KEY (saga_id, seq),
    CONSTRAINT tandem_saga_step_kind CHECK (kind IN ('FORWARD', 'COMPENSATION'))
);

-- A participant's memory per (saga, step): makes commands idempotent across resends, turns a
-- compensation of a step never applied into a recorded no-op, and refuses a forward command that
-- arrives after its compensation.
CREATE TABLE tandem_saga_participation (
    participant    text        NOT NULL,
    saga_id        uuid        NOT NULL,
    step           text        NOT NULL,
    state          text        NOT NULL,
    reply_type     text        NOT NULL,
    reply          text        NOT NULL,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tandem_saga_participation_pkey PRIMARY KEY (participant, saga_id, step)
);
