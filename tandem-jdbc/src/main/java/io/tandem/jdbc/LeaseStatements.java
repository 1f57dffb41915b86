package io.tandem.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The relays' statements on {@code tandem_relay_partition} (leases of the {@value
 * Dialect#PARTITIONS} partitions, each with an epoch bumped on every take-over) and {@code
 * tandem_relay_instance} (one heartbeat row per live relay). Each method binds its own parameters
 * and runs on the caller's connection, in the caller's transaction. Get it from {@link
 * Dialect#leases()}.
 *
 * <p>Stateless and thread-safe.
 */
public final class LeaseStatements {
  private static final String DEREGISTER = "DELETE FROM tandem_relay_instance WHERE relay_id = ?";

  /** The texts of one database family. */
  record Sql(
      String heartbeat,
      String liveInstances,
      String renew,
      String ownedPartitions,
      String acquireCandidates,
      String acquire,
      String release,
      String purgeInstances) {}

  private final Dialect dialect;
  private final Sql sql;

  LeaseStatements(Dialect dialect, Sql sql) {
    this.dialect = dialect;
    this.sql = sql;
  }

  /** Registers a relay instance, or refreshes its heartbeat when registered. */
  public int heartbeat(Connection connection, String relayId, String host) throws SQLException {
    return update(connection, sql.heartbeat(), relayId, host);
  }

  /** How many relay instances sent a heartbeat within {@code window}. */
  public long liveInstances(Connection connection, Duration window) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.liveInstances())) {
      ps.setLong(1, window.toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * Extends to {@code lease} from now every lease {@code relayId} still holds.
   *
   * @return how many partitions were renewed
   */
  public int renew(Connection connection, String relayId, Duration lease) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.renew())) {
      ps.setLong(1, lease.toMillis());
      ps.setString(2, relayId);
      return ps.executeUpdate();
    }
  }

  /** The partitions {@code relayId} holds with a live lease, each with its epoch, by number. */
  public SortedMap<Integer, Long> ownedPartitions(Connection connection, String relayId)
      throws SQLException {
    SortedMap<Integer, Long> owned = new TreeMap<>();
    try (PreparedStatement ps = connection.prepareStatement(sql.ownedPartitions())) {
      ps.setString(1, relayId);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          owned.put(rs.getInt("partition_no"), rs.getLong("epoch"));
        }
      }
    }
    return owned;
  }

  /**
   * Locks up to {@code limit} free or expired partitions until the transaction ends, skipping
   * partitions other transactions lock, lowest numbers first.
   */
  public List<Integer> acquireCandidates(Connection connection, int limit) throws SQLException {
    List<Integer> free = new ArrayList<>();
    try (PreparedStatement ps = connection.prepareStatement(sql.acquireCandidates())) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          free.add(rs.getInt(1));
        }
      }
    }
    return free;
  }

  /**
   * Gives {@code partitions} to {@code relayId} for {@code lease}, bumping each one's epoch.
   *
   * @return how many partitions were taken
   */
  public int acquire(
      Connection connection, String relayId, Duration lease, Collection<Integer> partitions)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.acquire())) {
      ps.setString(1, relayId);
      ps.setLong(2, lease.toMillis());
      dialect.bindList(connection, ps, 3, partitions);
      return ps.executeUpdate();
    }
  }

  /**
   * Gives back those of {@code partitions} that {@code relayId} owns.
   *
   * @return how many partitions were released
   */
  public int release(Connection connection, String relayId, Collection<Integer> partitions)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.release())) {
      ps.setString(1, relayId);
      dialect.bindList(connection, ps, 2, partitions);
      return ps.executeUpdate();
    }
  }

  /** Removes the instance row of {@code relayId}. */
  public int deregister(Connection connection, String relayId) throws SQLException {
    return update(connection, DEREGISTER, relayId);
  }

  /** Removes the instances silent for longer than {@code silence}. */
  public int purgeInstances(Connection connection, Duration silence) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.purgeInstances())) {
      ps.setLong(1, silence.toMillis());
      return ps.executeUpdate();
    }
  }

  private static int update(Connection connection, String text, String... values)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(text)) {
      for (int i = 0; i < values.length; i++) {
        ps.setString(i + 1, values[i]);
      }
      return ps.executeUpdate();
    }
  }
}
