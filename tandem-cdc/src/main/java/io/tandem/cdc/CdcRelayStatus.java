package io.tandem.cdc;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A CDC relay's view of itself, as of its last monitoring look ({@link CdcRelay#status()}).
 *
 * @param slotName the replication slot it reads
 * @param running whether the engine runs
 * @param failure why the engine stopped, if it failed
 * @param published events acknowledged by the broker since the start
 * @param lastPublishedAt when the broker last acknowledged one, if ever
 * @param lastHeartbeatAt when the stream last carried a heartbeat, if ever
 * @param heldAggregates aggregates whose events wait in the database (retry, quarantine, start)
 * @param slotLagBytes WAL the slot holds beyond its confirmed position ({@code
 *     pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)}), -1 before the first look
 * @param oldestPendingAge age of the oldest row still to publish (zero if none)
 * @param lagging whether either lag is above its alert threshold
 */
public record CdcRelayStatus(
    String slotName,
    boolean running,
    Optional<String> failure,
    long published,
    Optional<Instant> lastPublishedAt,
    Optional<Instant> lastHeartbeatAt,
    int heldAggregates,
    long slotLagBytes,
    Duration oldestPendingAge,
    boolean lagging) {}
