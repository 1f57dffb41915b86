package io.tandem.outbox.internal;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.LeaseStatements;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.RelayClock;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * One relay instance's side of the partition protocol: heartbeat, renew the leases it holds, and
 * move towards a fair share ({@code ceil(64 / live instances)}) by releasing extra partitions or
 * taking free and expired ones. Every acquisition bumps the partition's epoch, which fences the
 * previous owner's writes. Not thread-safe: the relay's worker thread drives it.
 */
public final class PartitionLeases {
  private final DataSource dataSource;
  private final Dialect dialect;
  private final LeaseStatements leases;
  private final String relayId;
  private final String host;
  private final Duration lease;
  private final RelayClock clock;
  private OwnedPartitions owned = OwnedPartitions.NONE;
  private int share;

  public PartitionLeases(
      DataSource dataSource,
      Dialect dialect,
      String relayId,
      String host,
      Duration lease,
      RelayClock clock) {
    this.clock = clock;
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.leases = dialect.leases();
    this.relayId = relayId;
    this.host = host;
    this.lease = lease;
  }

  /** The partitions held after the last successful {@link #coordinate()}. */
  public OwnedPartitions owned() {
    return owned;
  }

  /** The fair share computed by the last {@link #coordinate()}. */
  public int share() {
    return share;
  }

  /**
   * Heartbeats, then renews and rebalances in one transaction.
   *
   * @return the partitions now held; on failure the previous holding stays and expires by itself
   */
  public OwnedPartitions coordinate() {
    long start = clock.nanoTime();
    try {
      // The heartbeat commits on its own: held to the end of the transaction below, its row lock
      // would stall other relays' purge of silent instances, and on MariaDB two relays purging
      // at once deadlock on each other's heartbeat.
      Transactions.inTransaction(dataSource, c -> leases.heartbeat(c, relayId, host));
      Map<Integer, Long> held =
          Transactions.inTransaction(
              dataSource,
              dialect.relayIsolation(),
              c -> {
                long live = Math.max(1, leases.liveInstances(c, lease));
                share = (int) Math.ceil(Dialect.PARTITIONS / (double) live);
                leases.renew(c, relayId, lease);
                Map<Integer, Long> mine = leases.ownedPartitions(c, relayId);
                if (mine.size() > share) {
                  release(c, new ArrayList<>(mine.keySet()).subList(share, mine.size()), mine);
                } else if (mine.size() < share) {
                  List<Integer> free = leases.acquireCandidates(c, share - mine.size());
                  if (!free.isEmpty()) {
                    leases.acquire(c, relayId, lease, free);
                    mine = leases.ownedPartitions(c, relayId);
                  }
                }
                leases.purgeInstances(c, lease.multipliedBy(10));
                return mine;
              });
      // Act on the leases for at most 80% of their length, measured from before the renewal:
      // the database's lease_until is later than that, so this relay stops before anyone else
      // can take over.
      owned = new OwnedPartitions(held, start + lease.toNanos() * 4 / 5);
      return owned;
    } catch (SQLException e) {
      throw new JdbcException("relay " + relayId + " could not renew its partition leases", e);
    }
  }

  /** Gives every partition back and deregisters, so that other relays take over at once. */
  public void releaseAll() {
    try {
      Transactions.inTransaction(
          dataSource,
          dialect.relayIsolation(),
          c -> {
            if (!owned.isEmpty()) {
              release(c, new ArrayList<>(owned.epochs().keySet()), new HashMap<>());
            }
            leases.deregister(c, relayId);
            return null;
          });
    } catch (SQLException e) {
      throw new JdbcException("relay " + relayId + " could not release its partitions", e);
    } finally {
      owned = OwnedPartitions.NONE;
    }
  }

  private void release(Connection c, List<Integer> partitions, Map<Integer, Long> mine)
      throws SQLException {
    leases.release(c, relayId, partitions);
    partitions.forEach(mine::remove);
  }
}
