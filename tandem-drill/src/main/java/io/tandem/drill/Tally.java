package io.tandem.drill;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * What a drill's checker reads back from the databases and the broker after the fault: never from
 * the processes' own counters.
 *
 * <ul>
 *   <li>committed — changes the service committed: its {@code drill_changes} rows, plus any the
 *       service saw acknowledged by the database (its ack log) that the database no longer has;
 *   <li>published — distinct event ids on the broker topic the relay (or service) writes;
 *   <li>delivered — committed events whose side effect exists at the consumer;
 *   <li>duplicates delivered — messages the consumer received beyond the first of each event id
 *       ({@code drill_deliveries});
 *   <li>duplicate side effects — {@code drill_effects} rows beyond the first of each event id;
 *   <li>lost — committed events missing from the service database or without a side effect;
 *   <li>order violations — effects of an aggregate applied out of version order (a version that is
 *       not the previous one plus one, duplicates aside).
 * </ul>
 */
record Tally(
    long committed,
    long published,
    long delivered,
    long duplicatesDelivered,
    long duplicateSideEffects,
    long lost,
    long orderViolations) {

  static Tally read(
      DataSource service, DataSource consumer, Set<UUID> acknowledged, Set<UUID> onBroker)
      throws SQLException {
    Set<UUID> inDatabase = new HashSet<>();
    try (Connection c = service.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT event_id FROM drill_changes")) {
      while (rs.next()) {
        inDatabase.add(rs.getObject(1, UUID.class));
      }
    }
    Set<UUID> committed = new HashSet<>(inDatabase);
    committed.addAll(acknowledged);
    Set<UUID> applied = new HashSet<>();
    long effectRows = 0;
    long violations = 0;
    Map<String, Long> last = new HashMap<>();
    Map<String, Set<Long>> seen = new HashMap<>();
    try (Connection c = consumer.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT event_id, aggregate_id, version FROM drill_effects ORDER BY seq")) {
      while (rs.next()) {
        effectRows++;
        applied.add(rs.getObject(1, UUID.class));
        String aggregate = rs.getString(2);
        long version = rs.getLong(3);
        Set<Long> versions = seen.computeIfAbsent(aggregate, k -> new HashSet<>());
        long previous = last.getOrDefault(aggregate, 0L);
        if (!versions.add(version)) {
          continue; // a duplicate effect, counted as such
        }
        if (version != previous + 1) {
          violations++;
        }
        last.put(aggregate, Math.max(previous, version));
      }
    }
    long deliveries;
    long distinctDelivered;
    try (Connection c = consumer.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(event_id), count(DISTINCT event_id) FROM drill_deliveries")) {
      rs.next();
      deliveries = rs.getLong(1);
      distinctDelivered = rs.getLong(2);
    }
    long delivered = committed.stream().filter(applied::contains).count();
    long lost =
        committed.stream().filter(id -> !applied.contains(id) || !inDatabase.contains(id)).count();
    Set<UUID> published = new HashSet<>(onBroker);
    published.retainAll(committed);
    return new Tally(
        committed.size(),
        published.size(),
        delivered,
        deliveries - distinctDelivered,
        effectRows - applied.size(),
        lost,
        violations);
  }
}
