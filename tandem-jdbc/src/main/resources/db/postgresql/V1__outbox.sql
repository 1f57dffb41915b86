-- Tandem outbox (PostgreSQL). Event columns are immutable after insert; only delivery columns
-- change. Unpublished rows cannot be deleted. Both rules are enforced by the trigger below.
CREATE TABLE tandem_outbox (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id          uuid        NOT NULL,
    aggregate_type    text        NOT NULL,
    aggregate_id      text        NOT NULL,
    aggregate_version bigint      NOT NULL,
    event_type        text        NOT NULL,
    schema_version    integer     NOT NULL DEFAULT 1,
    payload           jsonb       NOT NULL,
    headers           jsonb       NOT NULL DEFAULT '{}'::jsonb,
    occurred_at       timestamptz NOT NULL DEFAULT now(),
    created_at        timestamptz NOT NULL DEFAULT now(),
    -- delivery columns
    partition_no      integer     NOT NULL DEFAULT 0,
    attempts          integer     NOT NULL DEFAULT 0,
    next_attempt_at   timestamptz NOT NULL DEFAULT '-infinity',
    claimed_by        text,
    lease_until       timestamptz,
    published_at      timestamptz,
    last_error        text,
    error_class       text,
    quarantined_at    timestamptz,
    CONSTRAINT tandem_outbox_event_id_key UNIQUE (event_id),
    CONSTRAINT tandem_outbox_aggregate_version_key
        UNIQUE (aggregate_type, aggregate_id, aggregate_version),
    CONSTRAINT tandem_outbox_names_not_blank CHECK (
        btrim(aggregate_type) <> '' AND btrim(aggregate_id) <> '' AND btrim(event_type) <> ''),
    CONSTRAINT tandem_outbox_version_positive CHECK (aggregate_version >= 1),
    CONSTRAINT tandem_outbox_schema_version_positive CHECK (schema_version >= 1),
    CONSTRAINT tandem_outbox_headers_object CHECK (jsonb_typeof(headers) = 'object')
);

-- The relay's claim scans only this small index, whatever the size of published history.
CREATE INDEX tandem_outbox_unpublished ON tandem_outbox (id)
    WHERE published_at IS NULL AND quarantined_at IS NULL;

COMMENT ON TABLE tandem_outbox IS
    'Tandem transactional outbox: one immutable event per row, published at least once by the relay';

CREATE FUNCTION tandem_outbox_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.published_at IS NULL THEN
            RAISE EXCEPTION 'tandem_outbox: event % is not published yet and cannot be deleted', OLD.event_id
                USING ERRCODE = 'integrity_constraint_violation',
                      HINT = 'Unpublished events are never deleted: quarantine or replay them instead.';
        END IF;
        RETURN OLD;
    END IF;
    IF NEW.id IS DISTINCT FROM OLD.id
        OR NEW.event_id IS DISTINCT FROM OLD.event_id
        OR NEW.aggregate_type IS DISTINCT FROM OLD.aggregate_type
        OR NEW.aggregate_id IS DISTINCT FROM OLD.aggregate_id
        OR NEW.aggregate_version IS DISTINCT FROM OLD.aggregate_version
        OR NEW.event_type IS DISTINCT FROM OLD.event_type
        OR NEW.schema_version IS DISTINCT FROM OLD.schema_version
        OR NEW.payload IS DISTINCT FROM OLD.payload
        OR NEW.headers IS DISTINCT FROM OLD.headers
        OR NEW.occurred_at IS DISTINCT FROM OLD.occurred_at
        OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
        RAISE EXCEPTION 'tandem_outbox: event columns of event % are immutable', OLD.event_id
            USING ERRCODE = 'integrity_constraint_violation',
                  HINT = 'Append a new event with the next aggregate_version instead of editing one.';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER tandem_outbox_guard
    BEFORE UPDATE OR DELETE ON tandem_outbox
    FOR EACH ROW EXECUTE FUNCTION tandem_outbox_guard();

-- Wakes relays that LISTEN on tandem_outbox when new rows commit.
CREATE FUNCTION tandem_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tandem_outbox', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER tandem_outbox_notify
    AFTER INSERT ON tandem_outbox
    FOR EACH STATEMENT EXECUTE FUNCTION tandem_outbox_notify();
