-- Partition leases for the relay (MariaDB 10.6+ / MySQL 8).
--
-- Every event belongs to one of 64 partitions, derived from its aggregate (tandem_outbox's
-- generated partition_no, created with the table in V1). A relay instance owns a set of
-- partitions through leases with a fencing epoch; only the owner publishes a partition's events,
-- one batch at a time, so events of one aggregate are published in order however many relay
-- instances run. Lease times are UTC, from UTC_TIMESTAMP(6).
--
-- Both tables are tiny and have no secondary index on purpose. The relay's transactions on them
-- run at READ COMMITTED (MariaDbDialect.relayIsolation), where an UPDATE scanning the primary key
-- skips rows another transaction holds when their committed version does not match (a
-- semi-consistent read), and a DELETE keeps no lock on rows that do not match. Through a
-- secondary index InnoDB would lock the index entry, then the row, in the opposite order to an
-- update of the row, and concurrent relays would deadlock.
CREATE TABLE tandem_relay_partition (
    partition_no INT          NOT NULL,
    owner        VARCHAR(255),
    epoch        BIGINT       NOT NULL DEFAULT 0,
    lease_until  DATETIME(6),
    acquired_at  DATETIME(6),
    PRIMARY KEY (partition_no),
    CONSTRAINT tandem_relay_partition_range CHECK (partition_no BETWEEN 0 AND 63)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

INSERT INTO tandem_relay_partition (partition_no) VALUES
    (0), (1), (2), (3), (4), (5), (6), (7), (8), (9), (10), (11), (12), (13), (14), (15),
    (16), (17), (18), (19), (20), (21), (22), (23), (24), (25), (26), (27), (28), (29), (30), (31),
    (32), (33), (34), (35), (36), (37), (38), (39), (40), (41), (42), (43), (44), (45), (46), (47),
    (48), (49), (50), (51), (52), (53), (54), (55), (56), (57), (58), (59), (60), (61), (62), (63);

CREATE TABLE tandem_relay_instance (
    relay_id     VARCHAR(255) NOT NULL,
    host         VARCHAR(255),
    started_at   DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    heartbeat_at DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    PRIMARY KEY (relay_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
