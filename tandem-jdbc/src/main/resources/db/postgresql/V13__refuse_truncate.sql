-- TRUNCATE removes every row without firing a row trigger, so the guard that keeps unpublished
-- events (V1, V8) never sees it, and nothing stops it from emptying the inbox (duplicates would be
-- applied again), the dead letters, the parked events, the sagas or the 2PC decision log (in-doubt
-- branches would be presumed aborted). A statement trigger refuses it on every table that holds
-- records Tandem promises to keep.
--
-- The way to remove rows is retention (tandem outbox|inbox retention, tandem saga purge), which
-- deletes only what may go. To empty a table deliberately — a test's fixture, a reset of a staging
-- database — set tandem.allow_truncate in the same transaction:
--     BEGIN; SET LOCAL tandem.allow_truncate = 'on'; TRUNCATE tandem_outbox; COMMIT;
-- A table owner can also drop the trigger; neither is something an application does by accident.
-- Tandem's relay-partition tables hold no records (relays recreate them) and are not guarded.
CREATE FUNCTION tandem_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('tandem.allow_truncate', true), '') = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'TRUNCATE % refused: it would remove records Tandem must keep', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation',
              HINT = 'Retention deletes what may go (tandem outbox retention, tandem inbox retention,'
                  || ' tandem saga purge). To empty the table on purpose, run'
                  || ' SET LOCAL tandem.allow_truncate = ''on'' in the same transaction.';
END
$$;

DO $migration$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['tandem_outbox', 'tandem_inbox', 'tandem_inbox_position',
        'tandem_inbox_parked', 'tandem_dead_letter', 'tandem_saga', 'tandem_saga_step',
        'tandem_saga_participation', 'tandem_xa_decision', 'tandem_xa_resolution'] LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I'
            || ' FOR EACH STATEMENT EXECUTE FUNCTION tandem_refuse_truncate()',
            t || '_refuse_truncate', t);
    END LOOP;
END
$migration$;

-- The insert trigger that wakes relays (V7) reads tandem_relay_instance, which an application
-- role holding only INSERT on the outbox (docs/security.md) may not read: it runs as the table's
-- owner, with the search path pinned to this schema so that a caller's path cannot redirect it.
DO $migration$
BEGIN
    EXECUTE format('ALTER FUNCTION tandem_outbox_notify() SECURITY DEFINER SET search_path = %I, pg_temp',
        current_schema());
END
$migration$;
