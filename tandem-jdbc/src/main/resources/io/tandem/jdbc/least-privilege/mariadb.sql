-- Least privilege for Tandem on MariaDB (docs/security.md). Run in Tandem's database (USE ...) as
-- the account that ran tandem migrate, after every migration; no service runs as that account.
-- Create the accounts first (a bare name is 'name'@'%'; use your own hosts), for example:
--     CREATE USER tandem_app_role IDENTIFIED BY '...';    -- and so on for each account below
-- None of them gets DROP, which TRUNCATE needs on MariaDB: TRUNCATE fires no trigger there, so
-- the privilege (and V11's foreign-key guard) is what stops it.
-- Every statement is idempotent. The six roles are separate so that no single credential can both
-- mark an unpublished event published and delete it.

-- The application: appends events in its own transactions. Nothing else on the outbox: it can
-- neither read, change nor delete an event once written.
GRANT INSERT ON tandem_outbox TO tandem_app_role;

-- The relay: reads due events and marks them (published, retried, quarantined) — only the delivery
-- columns; it owns its leases. It cannot delete, cannot insert, cannot edit an event column.
GRANT SELECT ON tandem_outbox TO tandem_relay_role;
GRANT UPDATE (published_at, published_by, attempts, next_attempt_at, last_error, error_class,
              quarantined_at)
    ON tandem_outbox TO tandem_relay_role;
GRANT SELECT, INSERT, UPDATE, DELETE ON tandem_relay_partition TO tandem_relay_role;
GRANT SELECT, INSERT, UPDATE, DELETE ON tandem_relay_instance TO tandem_relay_role;

-- Retention (tandem outbox|inbox retention, tandem saga purge): reads and deletes, never updates,
-- so it cannot mark an unpublished event published to get past the delete guard.
GRANT SELECT, DELETE ON tandem_outbox TO tandem_retention_role;
GRANT SELECT, DELETE ON tandem_inbox TO tandem_retention_role;
GRANT SELECT, DELETE ON tandem_dead_letter TO tandem_retention_role;
GRANT SELECT, DELETE ON tandem_saga TO tandem_retention_role;
GRANT SELECT, DELETE ON tandem_saga_step TO tandem_retention_role;
GRANT SELECT, DELETE ON tandem_saga_participation TO tandem_retention_role;

-- The operator (tandem outbox status|quarantined|replay|skip, inbox dead-letters|gaps, saga
-- list|show|retry-stuck): reads everything, replays and skips. Skipping is audited by skip_reason.
GRANT SELECT ON tandem_outbox TO tandem_operator_role;
GRANT SELECT ON tandem_relay_partition TO tandem_operator_role;
GRANT SELECT ON tandem_relay_instance TO tandem_operator_role;
GRANT SELECT ON tandem_inbox TO tandem_operator_role;
GRANT SELECT ON tandem_inbox_position TO tandem_operator_role;
GRANT SELECT ON tandem_inbox_parked TO tandem_operator_role;
GRANT SELECT ON tandem_dead_letter TO tandem_operator_role;
GRANT SELECT ON tandem_saga TO tandem_operator_role;
GRANT SELECT ON tandem_saga_step TO tandem_operator_role;
GRANT SELECT ON tandem_saga_participation TO tandem_operator_role;
GRANT UPDATE (quarantined_at, attempts, next_attempt_at, skipped_at, skip_reason)
    ON tandem_outbox TO tandem_operator_role;
GRANT UPDATE ON tandem_dead_letter TO tandem_operator_role;
GRANT UPDATE ON tandem_saga TO tandem_operator_role;

-- A consumer (ConsumerRunner with the inbox): records what it applied, keeps its positions, parks
-- and drains early versions (a drained parked row is deleted: parking is transient by design),
-- dead-letters what fails. It cannot delete its inbox history or a dead letter.
GRANT SELECT, INSERT ON tandem_inbox TO tandem_consumer_role;
GRANT SELECT, INSERT, UPDATE ON tandem_inbox_position TO tandem_consumer_role;
GRANT SELECT, INSERT, UPDATE ON tandem_dead_letter TO tandem_consumer_role;
GRANT SELECT, INSERT, DELETE ON tandem_inbox_parked TO tandem_consumer_role;

-- A saga orchestrator: its sagas' state, and the commands it sends through its outbox.
GRANT SELECT, INSERT, UPDATE ON tandem_saga TO tandem_orchestrator_role;
GRANT SELECT, INSERT, UPDATE ON tandem_saga_step TO tandem_orchestrator_role;
GRANT SELECT, INSERT, UPDATE ON tandem_saga_participation TO tandem_orchestrator_role;
GRANT INSERT ON tandem_outbox TO tandem_orchestrator_role;
