package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.inbox.internal.AggregateKey;
import io.tandem.inbox.internal.BatchPositions;
import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The batch's positions when another consumer instance creates one of them between the batch's lock
 * (which did not find it) and its insert: the insert waits for the other transaction, skips the row
 * it committed, and the batch locks that row and reads its version instead of starting the
 * aggregate over. Subclassed per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BatchPositionsRaceTest {
  private InboxDatabase db;

  abstract InboxDatabase openDatabase(String prefix) throws SQLException;

  /** Whether some transaction waits for a lock. */
  abstract String lockWaitCount();

  @BeforeAll
  void open() throws SQLException {
    db = openDatabase("position_race");
  }

  @AfterAll
  void close() {
    db.close();
  }

  @Test
  void aPositionCreatedMeanwhileIsLockedAtItsVersion() throws Exception {
    String consumer = "race-" + UUID.randomUUID();
    AggregateKey raced = new AggregateKey("Order", "raced");
    AggregateKey fresh = new AggregateKey("Order", "fresh");
    try (Connection other = db.dataSource.getConnection();
        Connection batch = db.dataSource.getConnection()) {
      Dialect dialect = Dialect.of(batch);
      other.setAutoCommit(false);
      other.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      batch.setAutoCommit(false);
      batch.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      // the batch's lock finds nothing, then its insert waits for the other's uncommitted row
      try (PreparedStatement ps = other.prepareStatement(dialect.positionCreate())) {
        ps.setString(1, consumer);
        ps.setString(2, raced.type());
        ps.setString(3, raced.id());
        ps.setLong(4, 5);
        ps.setLong(5, 0);
        ps.executeUpdate();
      }
      CompletableFuture<Map<AggregateKey, Long>> locked =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return new BatchPositions(dialect)
                      .lockPositions(batch, consumer, Map.of(raced, 0L, fresh, 0L));
                } catch (SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      await().atMost(Duration.ofSeconds(20)).until(() -> waiting() > 0);
      other.commit();

      assertThat(locked.get())
          .as("the raced position at the other's version, the fresh one created")
          .isEqualTo(Map.of(raced, 5L, fresh, 0L));
      batch.commit();
    }
  }

  private long waiting() throws SQLException {
    try (Connection c = db.dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(lockWaitCount());
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
