-- Two-phase commit (tandem-xa): the coordinator's decision log, the operator's resolutions, and
-- outbox inserts inside an XA branch.

-- One row per global transaction whose decision must survive the coordinator: COMMIT, written
-- after every branch voted yes and before phase 2 (presumed abort: no row means roll back), and
-- deleted once every branch committed; ROLLBACK, written by recovery before it presumes an
-- undecided transaction aborted (or by an operator's resolve), so that a late COMMIT from a stalled
-- coordinator fails on the primary key instead of committing half a transaction. A row with a
-- heuristic note is kept for the operator.
CREATE TABLE tandem_xa_decision (
    gtrid        text        NOT NULL,
    node_id      text        NOT NULL,
    decision     text        NOT NULL,
    participants text        NOT NULL,
    decided_by   text        NOT NULL,
    decided_at   timestamptz NOT NULL DEFAULT now(),
    heuristic    text,
    CONSTRAINT tandem_xa_decision_pkey PRIMARY KEY (gtrid),
    CONSTRAINT tandem_xa_decision_decision CHECK (decision IN ('COMMIT', 'ROLLBACK')),
    CONSTRAINT tandem_xa_decision_gtrid CHECK (octet_length(gtrid) BETWEEN 1 AND 64)
);

CREATE INDEX tandem_xa_decision_node ON tandem_xa_decision (node_id, decided_at);

-- Every `tandem xa resolve`: what the operator decided, what the log said before, what each branch
-- answered. Never deleted by Tandem.
CREATE TABLE tandem_xa_resolution (
    id            bigint      GENERATED ALWAYS AS IDENTITY,
    gtrid         text        NOT NULL,
    action        text        NOT NULL,
    logged_before text,
    forced        boolean     NOT NULL DEFAULT false,
    branches      text        NOT NULL,
    operator      text        NOT NULL,
    reason        text,
    resolved_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tandem_xa_resolution_pkey PRIMARY KEY (id),
    CONSTRAINT tandem_xa_resolution_action CHECK (action IN ('COMMIT', 'ROLLBACK'))
);

-- PostgreSQL refuses to PREPARE a transaction that ran NOTIFY, and the outbox's insert trigger
-- notifies while a relay listens. A session that runs XA branches says so with the setting
-- tandem.xa_branch = on (Tandem's coordinator sets it on its connections): then the insert trigger
-- does not notify but notes, in the transaction-local setting tandem.outbox_appended, that the
-- outbox was appended to; the coordinator wakes the relays after COMMIT PREPARED. The notifying
-- function itself is unchanged: only the trigger's condition is.
DROP TRIGGER tandem_outbox_notify ON tandem_outbox;

CREATE TRIGGER tandem_outbox_notify
    AFTER INSERT ON tandem_outbox
    FOR EACH STATEMENT
    WHEN (coalesce(current_setting('tandem.xa_branch', true), '') <> 'on')
    EXECUTE FUNCTION tandem_outbox_notify();

CREATE FUNCTION tandem_outbox_note_xa_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('tandem.outbox_appended', 'on', true);
    RETURN NULL;
END
$$;

CREATE TRIGGER tandem_outbox_note_xa_insert
    AFTER INSERT ON tandem_outbox
    FOR EACH STATEMENT
    WHEN (coalesce(current_setting('tandem.xa_branch', true), '') = 'on')
    EXECUTE FUNCTION tandem_outbox_note_xa_insert();
