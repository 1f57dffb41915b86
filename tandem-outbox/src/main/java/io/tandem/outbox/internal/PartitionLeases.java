package io.tandem.outbox.internal;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.RelayClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
      Transactions.inTransaction(
          dataSource, c -> execute(c, dialect.relayHeartbeat(), relayId, host));
      Map<Integer, Long> held =
          Transactions.inTransaction(
              dataSource,
              dialect.relayIsolation(),
              c -> {
                long live =
                    Math.max(1, queryLong(c, dialect.relayLiveInstances(), lease.toMillis()));
                share = (int) Math.ceil(Dialect.PARTITIONS / (double) live);
                execute(c, dialect.relayRenew(), lease.toMillis(), relayId);
                Map<Integer, Long> mine = partitions(c, dialect.relayOwnedPartitions(), relayId);
                if (mine.size() > share) {
                  release(c, new ArrayList<>(mine.keySet()).subList(share, mine.size()), mine);
                } else if (mine.size() < share) {
                  List<Integer> free = new ArrayList<>();
                  try (PreparedStatement ps =
                          prepare(c, dialect.relayAcquireCandidates(), share - mine.size());
                      ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                      free.add(rs.getInt(1));
                    }
                  }
                  if (!free.isEmpty()) {
                    try (PreparedStatement ps = c.prepareStatement(dialect.relayAcquire())) {
                      ps.setString(1, relayId);
                      ps.setLong(2, lease.toMillis());
                      dialect.bindList(c, ps, 3, free);
                      ps.executeUpdate();
                    }
                    mine = partitions(c, dialect.relayOwnedPartitions(), relayId);
                  }
                }
                execute(c, dialect.relayPurgeInstances(), lease.toMillis() * 10);
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
            execute(c, dialect.relayDeregister(), relayId);
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
    try (PreparedStatement ps = c.prepareStatement(dialect.relayRelease())) {
      ps.setString(1, relayId);
      dialect.bindList(c, ps, 2, partitions);
      ps.executeUpdate();
    }
    partitions.forEach(mine::remove);
  }

  private static Map<Integer, Long> partitions(Connection c, String sql, Object... params)
      throws SQLException {
    Map<Integer, Long> result = new java.util.TreeMap<>();
    try (PreparedStatement ps = prepare(c, sql, params);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        result.put(rs.getInt("partition_no"), rs.getLong("epoch"));
      }
    }
    return result;
  }

  private static long queryLong(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, params);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static int execute(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, params)) {
      return ps.executeUpdate();
    }
  }

  private static PreparedStatement prepare(Connection c, String sql, Object... params)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    for (int i = 0; i < params.length; i++) {
      ps.setObject(i + 1, params[i]);
    }
    return ps;
  }
}
