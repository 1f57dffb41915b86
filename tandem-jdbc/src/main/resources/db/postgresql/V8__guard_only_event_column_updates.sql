-- The immutability guard runs only for UPDATEs that set an event column.
--
-- V1's row trigger ran for every updated row, the relay's marks included: a PL/pgSQL call that
-- compared eleven columns (the jsonb payload among them) of every published row, about 10 us a
-- row on the development machine. A column-list trigger ("BEFORE UPDATE OF ...") fires only when
-- the UPDATE's SET list names one of the columns, which every edit of an event column must do, so
-- the guard refuses exactly what it refused before: setting a column to its own value still
-- passes, any other value is still refused. The relay's marks and the operator's replay and skip
-- set only delivery columns and no longer run it. DELETE keeps its own row trigger.
--
-- A later migration that adds an event column adds it to this list.
DROP TRIGGER tandem_outbox_guard ON tandem_outbox;

CREATE TRIGGER tandem_outbox_guard_update
    BEFORE UPDATE OF id, event_id, aggregate_type, aggregate_id, aggregate_version, event_type,
        schema_version, payload, headers, occurred_at, created_at
    ON tandem_outbox
    FOR EACH ROW EXECUTE FUNCTION tandem_outbox_guard();

CREATE TRIGGER tandem_outbox_guard_delete
    BEFORE DELETE ON tandem_outbox
    FOR EACH ROW EXECUTE FUNCTION tandem_outbox_guard();
