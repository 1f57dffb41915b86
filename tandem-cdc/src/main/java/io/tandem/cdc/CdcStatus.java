package io.tandem.cdc;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A CDC relay's state as the database shows it, for operators ({@code tandem cdc status}); read by
 * {@link CdcOperations#status}, without the relay running.
 *
 * @param slotName the replication slot
 * @param slotExists whether PostgreSQL has the slot
 * @param slotActive whether a client streams from it now
 * @param activePid the PostgreSQL backend streaming from it, if any
 * @param confirmedFlushLsn the position the slot's reader confirmed, if any
 * @param slotLagBytes WAL held beyond the confirmed position ({@code pg_wal_lsn_diff}); -1 without
 *     a slot
 * @param relayId the relay that last registered on the slot, if any
 * @param relayHeartbeatAt when that relay last beat
 * @param lastPublishedAt when it last had an event acknowledged
 * @param lastFlushedAt when it last stored its position
 * @param lastHeartbeatRowAt when Debezium's heartbeat query last wrote its row
 * @param pending outbox rows still to publish (not quarantined or skipped)
 * @param oldestPendingAge age of the oldest of them
 * @param lagging whether slot lag or that age is above its alert threshold
 * @param problem what an operator should look at, if anything
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
    Optional<String> problem) {}
