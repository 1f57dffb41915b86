-- Insert notifications only while some relay listens for them.
--
-- A notifying transaction holds PostgreSQL's notification queue lock from its pre-commit until
-- its commit record is flushed, so notifying commits go one at a time, without group commit: on
-- a small machine that halves the writers' throughput. A relay that keeps finding rows reads
-- again at once and does not need a notification per commit; it says so here ("listening" false)
-- and the trigger then does not notify. Rows of relays that stopped are purged with their
-- heartbeat; a relay of an older version, or one that just started, counts as listening.
ALTER TABLE tandem_relay_instance ADD COLUMN listening boolean NOT NULL DEFAULT true;

CREATE OR REPLACE FUNCTION tandem_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM tandem_relay_instance WHERE listening) THEN
        PERFORM pg_notify('tandem_outbox', '');
    END IF;
    RETURN NULL;
END
$$;
