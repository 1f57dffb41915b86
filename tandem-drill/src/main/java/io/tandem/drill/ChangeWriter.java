package io.tandem.drill;

import io.tandem.core.Event;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Commits the service's business changes: a block of consecutive changes {@code first..last} in one
 * transaction — each change bumps its account's version ({@code drill_accounts}), records itself
 * ({@code drill_changes}) and, unless the service publishes directly, appends its event to the
 * outbox. Every row of a block commits or none does, so "after the commit" still means: every
 * change of the block is in the database with its event. Accounts are locked in name order, so two
 * writers whose blocks share accounts wait for each other instead of deadlocking.
 *
 * <p>Not thread-safe per call site; one instance may serve several writer threads (it holds no
 * state of its own besides its configuration).
 */
final class ChangeWriter {
  private static final String BUMP =
      "UPDATE drill_accounts SET version = version + ? WHERE id = ? RETURNING version";
  private static final String RECORD =
      "INSERT INTO drill_changes (event_id, aggregate_id, version) VALUES (?, ?, ?)";

  private final DataSource ds;
  private final Outbox outbox;
  private final boolean direct;
  private final int aggregates;
  private final int poisonAt;

  ChangeWriter(DataSource ds, Outbox outbox, boolean direct, int aggregates, int poisonAt) {
    this.ds = ds;
    this.outbox = outbox;
    this.direct = direct;
    this.aggregates = aggregates;
    this.poisonAt = poisonAt;
  }

  /** Commits changes {@code first..last}; retries while the database is unreachable (a restart). */
  List<Event> commitWithRetry(int first, int last) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try {
        return Transactions.inTransaction(ds, c -> commit(c, first, last));
      } catch (RuntimeException | SQLException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "changes " + first + ".." + last + " could not be committed", e);
        }
        System.out.println(
            "commit of changes " + first + ".." + last + " failed, retrying: " + e.getMessage());
        try {
          TimeUnit.MILLISECONDS.sleep(200);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while retrying a commit", ie);
        }
      }
    }
  }

  private List<Event> commit(Connection c, int first, int last) throws SQLException {
    Map<String, List<Integer>> byAccount = new TreeMap<>(); // lock order: by account name
    for (int n = first; n <= last; n++) {
      byAccount.computeIfAbsent("account-" + (n % aggregates), k -> new ArrayList<>()).add(n);
    }
    List<Event> events = new ArrayList<>(last - first + 1);
    try (PreparedStatement bump = c.prepareStatement(BUMP)) {
      for (Map.Entry<String, List<Integer>> e : byAccount.entrySet()) {
        List<Integer> changes = e.getValue();
        bump.setInt(1, changes.size());
        bump.setString(2, e.getKey());
        long version;
        try (ResultSet rs = bump.executeQuery()) {
          rs.next();
          version = rs.getLong(1) - changes.size(); // the version before this block
        }
        for (int n : changes) {
          events.add(event(e.getKey(), ++version, n));
        }
      }
    }
    try (PreparedStatement ps = c.prepareStatement(RECORD)) {
      for (Event event : events) {
        ps.setObject(1, event.eventId());
        ps.setString(2, event.aggregateId());
        ps.setLong(3, event.aggregateVersion());
        ps.addBatch();
      }
      ps.executeBatch();
    }
    if (!direct) {
      outbox.appendAll(c, events);
    }
    return events;
  }

  private Event event(String account, long version, int n) {
    return Event.builder()
        .aggregate(RoleMain.AGGREGATE_TYPE, account, version)
        .eventType(RoleMain.EVENT_TYPE)
        .payload(
            "{\"change\":"
                + n
                + ",\"version\":"
                + version
                + (n == poisonAt ? "," + DrillEffects.POISON : "")
                + "}")
        .build();
  }
}
