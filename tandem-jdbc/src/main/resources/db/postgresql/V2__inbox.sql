-- Tandem inbox (PostgreSQL): one row per (consumer, event) whose side effect committed.
-- The primary key turns a duplicate delivery into a no-op (INSERT ... ON CONFLICT DO NOTHING).
CREATE TABLE tandem_inbox (
    consumer          text        NOT NULL,
    event_id          uuid        NOT NULL,
    aggregate_type    text        NOT NULL,
    aggregate_id      text        NOT NULL,
    aggregate_version bigint      NOT NULL,
    event_type        text        NOT NULL,
    processed_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tandem_inbox_pkey PRIMARY KEY (consumer, event_id)
);

-- Retention purges by age.
CREATE INDEX tandem_inbox_processed_at ON tandem_inbox (processed_at);
