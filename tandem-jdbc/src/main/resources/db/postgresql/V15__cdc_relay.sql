-- The CDC relay (tandem-cdc): its position in the database's change stream, its liveness, and the
-- heartbeat rows that keep an idle replication slot from holding WAL.

-- Debezium's source offsets (a Kafka Connect OffsetBackingStore of Tandem's own), one row per key
-- of one relay's store (its replication slot name). Written only after the broker acknowledged
-- every event before the position, so a restart resumes at or before the first unacknowledged one.
CREATE TABLE tandem_cdc_offset (
    store_name   text        NOT NULL,
    offset_key   text        NOT NULL,
    offset_value text,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tandem_cdc_offset_pkey PRIMARY KEY (store_name, offset_key)
);

-- One row per CDC relay (by slot): who runs it, and when it last beat, published and flushed its
-- position. `tandem cdc status` reads it beside pg_replication_slots.
CREATE TABLE tandem_cdc_relay (
    slot_name         text        NOT NULL,
    relay_id          text        NOT NULL,
    host              text        NOT NULL,
    started_at        timestamptz NOT NULL DEFAULT now(),
    heartbeat_at      timestamptz NOT NULL DEFAULT now(),
    last_published_at timestamptz,
    last_flushed_at   timestamptz,
    published_count   bigint      NOT NULL DEFAULT 0,
    CONSTRAINT tandem_cdc_relay_pkey PRIMARY KEY (slot_name)
);

-- Debezium's heartbeat.action.query inserts here (the table is in the relay's publication), so the
-- stream carries a change even when every change of the outbox is filtered or there is none, and
-- the slot's confirmed position moves on. Old rows are deleted by the relay (deletes are not
-- published: the publication carries inserts only).
CREATE TABLE tandem_cdc_heartbeat (
    id        bigint      GENERATED ALWAYS AS IDENTITY,
    slot_name text        NOT NULL,
    beat_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tandem_cdc_heartbeat_pkey PRIMARY KEY (id)
);

CREATE INDEX tandem_cdc_heartbeat_slot ON tandem_cdc_heartbeat (slot_name, id);
