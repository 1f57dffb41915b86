-- TRUNCATE fires no trigger on MariaDB (it drops and recreates the table), so the guard that keeps
-- unpublished events (V1) never sees it. What MariaDB does enforce: InnoDB refuses to TRUNCATE (or
-- DROP) a table that another table's foreign key references, whether or not any row refers to it.
-- This table is that reference: it stays empty, and its foreign keys make TRUNCATE of the outbox,
-- the inbox, the dead letters, the sagas and the 2PC decision log fail with error 1701 ("Cannot
-- truncate a table referenced in a foreign key constraint").
--
-- Limits, documented in docs/security.md: SET foreign_key_checks = 0 in a session lifts it (as
-- tandem.allow_truncate does on PostgreSQL); the tables with composite keys only (inbox positions,
-- parked events, saga steps and participations) are not referenced and rely on privileges —
-- TRUNCATE needs the DROP privilege, which no role of docs/security.md has. Deleting a referenced
-- row checks this empty table's index: one lookup per deleted row, negligible for retention.
CREATE TABLE tandem_truncate_guard (
    outbox_id      BIGINT,
    inbox_consumer VARCHAR(255),
    inbox_event_id CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci,
    dead_letter_id BIGINT,
    saga_id        CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci,
    xa_gtrid       VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin,
    CONSTRAINT tandem_truncate_guard_empty CHECK (FALSE),
    CONSTRAINT tandem_truncate_guard_outbox FOREIGN KEY (outbox_id) REFERENCES tandem_outbox (id),
    CONSTRAINT tandem_truncate_guard_inbox
        FOREIGN KEY (inbox_consumer, inbox_event_id) REFERENCES tandem_inbox (consumer, event_id),
    CONSTRAINT tandem_truncate_guard_dead_letter
        FOREIGN KEY (dead_letter_id) REFERENCES tandem_dead_letter (id),
    CONSTRAINT tandem_truncate_guard_saga FOREIGN KEY (saga_id) REFERENCES tandem_saga (saga_id),
    CONSTRAINT tandem_truncate_guard_xa_decision
        FOREIGN KEY (xa_gtrid) REFERENCES tandem_xa_decision (gtrid)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
  COMMENT = 'Always empty: its foreign keys make InnoDB refuse TRUNCATE of the tables it names';
