package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The checker on hand-made database states: each kind of breakage is seen and counted. */
class TallyTest {
  private IsolatedDatabase serviceDb;
  private IsolatedDatabase consumerDb;
  private final UUID a1 = UUID.randomUUID();
  private final UUID a2 = UUID.randomUUID();
  private final UUID a3 = UUID.randomUUID();
  private final UUID b1 = UUID.randomUUID();

  @BeforeEach
  void createDatabases() throws SQLException {
    serviceDb = TestInfrastructure.postgres().createDatabase("tally_service");
    consumerDb = TestInfrastructure.postgres().createDatabase("tally_consumer");
    DrillSchema.createServiceTables(serviceDb.dataSource(), 2);
    DrillSchema.createConsumerTables(consumerDb.dataSource());
    change(a1, "account-0", 1);
    change(a2, "account-0", 2);
    change(a3, "account-0", 3);
    change(b1, "account-1", 1);
  }

  @AfterEach
  void dropDatabases() {
    serviceDb.close();
    consumerDb.close();
  }

  @Test
  void aHealthyRunCountsNothingWrong() throws SQLException {
    effects(a1, "account-0", 1, b1, "account-1", 1, a2, "account-0", 2, a3, "account-0", 3);
    deliveries(a1, b1, a2, a3, a2); // a2 received twice, applied once
    Tally t = tally(Set.of(), Set.of(a1, a2, a3, b1));

    assertThat(t).isEqualTo(new Tally(4, 4, 4, 1, 0, 0, 0));
  }

  @Test
  void aMissingEffectIsLost() throws SQLException {
    effects(a1, "account-0", 1, a2, "account-0", 2, a3, "account-0", 3);
    Tally t = tally(Set.of(), Set.of(a1, a2, a3));

    assertThat(t.lost()).isEqualTo(1);
    assertThat(t.delivered()).isEqualTo(3);
    assertThat(t.published()).isEqualTo(3);
  }

  @Test
  void aSecondEffectOfOneEventIsADuplicateSideEffect() throws SQLException {
    effects(a1, "account-0", 1, a2, "account-0", 2, a2, "account-0", 2, a3, "account-0", 3);
    effects(b1, "account-1", 1, b1, "account-1", 1, b1, "account-1", 1);
    Tally t = tally(Set.of(), Set.of());

    assertThat(t.duplicateSideEffects()).isEqualTo(3);
    assertThat(t.orderViolations()).isZero();
    assertThat(t.lost()).isZero();
  }

  @Test
  void versionsAppliedOutOfOrderAreViolations() throws SQLException {
    effects(a2, "account-0", 2, a1, "account-0", 1, a3, "account-0", 3, b1, "account-1", 1);
    Tally t = tally(Set.of(), Set.of());

    // 2 before 1 (a gap), then 1 after 2: two violations; 3 follows the highest applied, fine.
    assertThat(t.orderViolations()).isEqualTo(2);
    assertThat(t.lost()).isZero();
  }

  @Test
  void aCommitTheDatabaseAcknowledgedAndThenForgotIsLostEvenIfItsEffectExists()
      throws SQLException {
    UUID forgotten = UUID.randomUUID();
    effects(a1, "account-0", 1, a2, "account-0", 2, a3, "account-0", 3, b1, "account-1", 1);
    effects(forgotten, "account-1", 2);
    Tally t = tally(Set.of(a1, a2, a3, b1, forgotten), Set.of());

    assertThat(t.committed()).isEqualTo(5);
    assertThat(t.lost()).isEqualTo(1);
  }

  private Tally tally(Set<UUID> acknowledged, Set<UUID> onBroker) throws SQLException {
    return Tally.read(serviceDb.dataSource(), consumerDb.dataSource(), acknowledged, onBroker);
  }

  private void change(UUID id, String aggregate, long version) throws SQLException {
    insert(
        serviceDb.dataSource(),
        "INSERT INTO drill_changes (event_id, aggregate_id, version) VALUES (?, ?, ?)",
        id,
        aggregate,
        version);
  }

  private void effects(Object... rows) throws SQLException {
    for (int i = 0; i < rows.length; i += 3) {
      insert(
          consumerDb.dataSource(),
          "INSERT INTO drill_effects (event_id, aggregate_id, version) VALUES (?, ?, ?)",
          rows[i],
          rows[i + 1],
          ((Integer) rows[i + 2]).longValue());
    }
  }

  private void deliveries(UUID... ids) throws SQLException {
    try (Connection c = consumerDb.dataSource().getConnection();
        Statement s = c.createStatement()) {
      for (UUID id : ids) {
        s.executeUpdate("INSERT INTO drill_deliveries (event_id) VALUES ('" + id + "')");
      }
    }
  }

  private static void insert(DataSource ds, String sql, Object id, Object aggregate, long version)
      throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, id);
      ps.setString(2, (String) aggregate);
      ps.setLong(3, version);
      ps.executeUpdate();
    }
  }
}
