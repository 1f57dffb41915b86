package io.tandem.cdc;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A CDC relay's state as the database shows it, for operators ({@code tandem cdc status}); read by
 * {@link CdcOperations#status}, without the relay running. On PostgreSQL the relay's position is
 * its replication slot's; on MariaDB, which has no slots, it is the binlog position the relay
 * stored in {@code tandem_cdc_offset} under the slot's name.
 *
 * @param slotName the replication slot (MariaDB: the stored position's name)
 * @param slotExists whether PostgreSQL has the slot (MariaDB: whether a position is stored)
 * @param slotActive whether a client streams from it now (MariaDB: a binlog reader runs and the
 *     relay beat within {@link CdcOperations#MARIADB_STALE_HEARTBEAT})
 * @param activePid the PostgreSQL backend streaming from it (MariaDB: the lowest binlog reader's
 *     thread id), if any
 * @param confirmedFlushLsn the position the slot's reader confirmed (MariaDB: the stored binlog
 *     position {@code file:pos}), if any
 * @param slotLagBytes WAL held beyond the confirmed position ({@code pg_wal_lsn_diff}; MariaDB:
 *     binlog bytes written after the stored position, across files); -1 without a position
 * @param relayId the relay that last registered on the slot, if any
 * @param relayHeartbeatAt when that relay last beat
 * @param lastPublishedAt when it last had an event acknowledged
 * @param lastFlushedAt when it last stored its position
 * @param lastHeartbeatRowAt when Debezium's heartbeat query last wrote its row (PostgreSQL only)
 * @param pending outbox rows still to publish (not quarantined or skipped)
 * @param oldestPendingAge age of the oldest of them
 * @param lagging whether slot lag or that age is above its alert threshold
 * @param problem what an operator should look at, if anything
 * @param database {@code postgresql} or {@code mariadb}
 * @param serverPosition the database's current write position ({@code pg_current_wal_lsn()};
 *     MariaDB: {@code SHOW MASTER STATUS} as {@code file:pos})
 */
public record CdcStatus(
    String slotName,
    boolean slotExists,
    boolean slotActive,
    Optional<Long> activePid,
    Optional<String> confirmedFlushLsn,
    long slotLagBytes,
    Optional<String> relayId,
    Optional<Instant> relayHeartbeatAt,
    Optional<Instant> lastPublishedAt,
    Optional<Instant> lastFlushedAt,
    Optional<Instant> lastHeartbeatRowAt,
    long pending,
    Duration oldestPendingAge,
    boolean lagging,
    Optional<String> problem,
    String database,
    Optional<String> serverPosition) {}
