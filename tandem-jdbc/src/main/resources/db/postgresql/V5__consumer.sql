-- Tandem consumer side (PostgreSQL): the ordering guard, parked events and dead letters.

-- Ordering guard: the last aggregate_version a consumer applied, per aggregate. Updated in the
-- transaction of the side effect; its row lock serialises two deliveries of one aggregate.
CREATE TABLE tandem_inbox_position (
    consumer          text        NOT NULL,
    aggregate_type    text        NOT NULL,
    aggregate_id      text        NOT NULL,
    last_version      bigint      NOT NULL,
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tandem_inbox_position_pkey PRIMARY KEY (consumer, aggregate_type, aggregate_id)
);

-- Events that arrived before a predecessor: kept durably (the message is acknowledged once its
-- row commits) and applied, in order, as soon as the missing version is applied.
CREATE TABLE tandem_inbox_parked (
    consumer          text        NOT NULL,
    aggregate_type    text        NOT NULL,
    aggregate_id      text        NOT NULL,
    aggregate_version bigint      NOT NULL,
    event_id          uuid        NOT NULL,
    event_type        text        NOT NULL,
    schema_version    integer     NOT NULL,
    payload           text        NOT NULL,
    headers           text        NOT NULL,
    occurred_at       timestamptz NOT NULL,
    origin            text        NOT NULL,
    parked_at         timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tandem_inbox_parked_pkey
        PRIMARY KEY (consumer, aggregate_type, aggregate_id, aggregate_version)
);

-- Gap reports look for the oldest parked events of a consumer.
CREATE INDEX tandem_inbox_parked_age ON tandem_inbox_parked (consumer, parked_at);

-- Messages a consumer could not apply: undecodable, refused by the handler for good, or still
-- failing after the retry policy's attempts. The raw message is kept for replay; rows are never
-- deleted automatically (status DEAD until an operator replays or discards it).
CREATE TABLE tandem_dead_letter (
    id                bigint      GENERATED ALWAYS AS IDENTITY,
    consumer          text        NOT NULL,
    status            text        NOT NULL DEFAULT 'DEAD',
    reason_class      text        NOT NULL,
    reason            text        NOT NULL,
    attempts          integer     NOT NULL,
    origin            text        NOT NULL,
    raw_headers       text        NOT NULL,
    raw_body          bytea       NOT NULL,
    event_id          uuid,
    aggregate_type    text,
    aggregate_id      text,
    aggregate_version bigint,
    event_type        text,
    -- The decoded event as Tandem's JSON envelope, when the message could be decoded.
    event_json        text,
    dead_at           timestamptz NOT NULL DEFAULT now(),
    resolved_at       timestamptz,
    CONSTRAINT tandem_dead_letter_pkey PRIMARY KEY (id),
    CONSTRAINT tandem_dead_letter_status CHECK (status IN ('DEAD', 'REPLAYED', 'DISCARDED'))
);

CREATE INDEX tandem_dead_letter_open ON tandem_dead_letter (consumer, status, id);
CREATE INDEX tandem_dead_letter_aggregate
    ON tandem_dead_letter (consumer, aggregate_type, aggregate_id, status);
