package io.tandem.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestInfrastructure;
import java.sql.SQLException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

@RequiresMariaDb
class MariaDbDialectTest extends DialectTest {
  @Override
  DatabaseServer server() {
    return TestInfrastructure.mariadb();
  }

  @Override
  Dialect expectedDialect() {
    return MariaDbDialect.INSTANCE;
  }

  @Test
  void theGuardComparesEventColumnsByteForByte() throws SQLException {
    // utf8mb4_bin ignores trailing spaces in comparisons; the guard must not.
    insert(EVENT, "Order", "o-1", 1, Instant.now());
    assertThatThrownBy(() -> execute("UPDATE tandem_outbox SET payload = CONCAT(payload, ' ')"))
        .hasMessageContaining("are immutable");
    assertThatThrownBy(() -> execute("UPDATE tandem_outbox SET event_type = 'orderconfirmed'"))
        .hasMessageContaining("are immutable");
  }

  @Test
  void eventIdsAreCheckedLikeUuids() {
    assertThatThrownBy(
            () ->
                execute(
                    "INSERT INTO tandem_outbox (event_id, aggregate_type, aggregate_id,"
                        + " aggregate_version, event_type, payload)"
                        + " VALUES ('not-a-uuid', 'Order', 'o-1', 1, 'E', '{}')"))
        .hasMessageContaining("tandem_outbox_event_id_uuid");
    assertThatThrownBy(
            () ->
                execute(
                    "INSERT INTO tandem_outbox (event_id, aggregate_type, aggregate_id,"
                        + " aggregate_version, event_type, payload, headers)"
                        + " VALUES (UUID(), 'Order', 'o-1', 1, 'E', '{}', '[]')"))
        .hasMessageContaining("tandem_outbox_headers_object");
    assertThatThrownBy(
            () ->
                execute(
                    "INSERT INTO tandem_outbox (event_id, aggregate_type, aggregate_id,"
                        + " aggregate_version, event_type, payload)"
                        + " VALUES (UUID(), 'Order', 'o-1', 1, 'E', '{oops')"))
        .hasMessageContaining("tandem_outbox_payload_json");
  }

  @Override
  String migrationFolder() {
    return "mariadb";
  }
}
