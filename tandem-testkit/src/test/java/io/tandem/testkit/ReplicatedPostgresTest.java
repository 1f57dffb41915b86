package io.tandem.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.ReplicatedPostgres.Replication;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The primary–standby pair: what each replication mode promises about acknowledged commits when the
 * primary is lost. Slow (two pairs started, about 20 s).
 */
@Tag("slow")
class ReplicatedPostgresTest {

  @Test
  void aSynchronousStandbyKeepsEveryAcknowledgedCommitAndHoldsCommitsItHasNot() throws Exception {
    try (ReplicatedPostgres pair = ReplicatedPostgres.start(Replication.SYNCHRONOUS);
        IsolatedDatabase db = pair.server().createDatabase("failover_sync")) {
      DataSource ds = db.dataSource();
      execute(ds, "CREATE TABLE t (n int PRIMARY KEY)");
      for (int n = 1; n <= 50; n++) {
        execute(ds, "INSERT INTO t VALUES (" + n + ")");
      }

      pair.pauseStandby();
      CompletableFuture<Void> held =
          CompletableFuture.runAsync(() -> executeUnchecked(ds, "INSERT INTO t VALUES (51)"));
      TimeUnit.MILLISECONDS.sleep(1500);
      // The standby does not have it, so the primary does not acknowledge it.
      assertThat(held).isNotDone();

      long ms = pair.failOver();
      assertThat(ms).isPositive();
      assertThat(held)
          .failsWithin(30, TimeUnit.SECONDS); // cut with the primary, never acknowledged

      // The same URL now reaches the promoted standby: all 50 acknowledged rows, and it writes.
      assertThat(count(ds, "SELECT count(*) FROM t WHERE n <= 50")).isEqualTo(50);
      execute(ds, "INSERT INTO t VALUES (52)");
      assertThat(count(ds, "SELECT count(*) FROM t WHERE n = 52")).isEqualTo(1);
      assertThat(count(ds, "SELECT CASE WHEN pg_is_in_recovery() THEN 1 ELSE 0 END")).isZero();
    }
  }

  @Test
  void anAsynchronousStandbyBehindThePrimaryLosesAcknowledgedCommits() throws Exception {
    try (ReplicatedPostgres pair = ReplicatedPostgres.start(Replication.ASYNCHRONOUS);
        IsolatedDatabase db = pair.server().createDatabase("failover_async")) {
      DataSource ds = db.dataSource();
      execute(ds, "CREATE TABLE t (n int PRIMARY KEY)");
      execute(ds, "INSERT INTO t VALUES (1)");
      TimeUnit.MILLISECONDS.sleep(500); // let the standby have it

      pair.pauseStandby();
      for (int n = 2; n <= 20; n++) {
        execute(ds, "INSERT INTO t VALUES (" + n + ")"); // acknowledged by the primary alone
      }
      pair.failOver();

      // What the primary acknowledged while the standby was behind is gone.
      assertThat(count(ds, "SELECT count(*) FROM t WHERE n = 1")).isEqualTo(1);
      assertThat(count(ds, "SELECT count(*) FROM t WHERE n > 1")).isZero();
    }
  }

  private static void execute(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static void executeUnchecked(DataSource ds, String sql) {
    try {
      execute(ds, sql);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long count(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
