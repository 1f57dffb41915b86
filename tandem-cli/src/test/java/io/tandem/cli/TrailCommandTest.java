package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code tandem trail} over two services' real databases. */
class TrailCommandTest {
  private static IsolatedDatabase orders;
  private static IsolatedDatabase payments;

  @BeforeAll
  static void twoServices() throws Exception {
    orders = TestInfrastructure.postgres().createDatabase("cli_trail_orders");
    payments = TestInfrastructure.postgres().createDatabase("cli_trail_payments");
    Instant t0 = Instant.parse("2026-12-01T10:00:00Z");
    Migrations.migrate(orders.dataSource());
    Migrations.migrate(payments.dataSource());
    append(orders, "Order", 1, "OrderPlaced", "tx-1", t0);
    append(payments, "Payment", 1, "PaymentAuthorized", "tx-1", t0.plusMillis(40));
    append(orders, "Order", 2, "OrderConfirmed", "tx-1", t0.plusMillis(90));
    append(orders, "Order", 1, "OrderPlaced", "tx-2", t0.plusMillis(5)); // another transaction
  }

  private static void append(
      IsolatedDatabase db,
      String type,
      long version,
      String eventType,
      String correlation,
      Instant at)
      throws Exception {
    Outbox outbox = Outbox.create(Dialect.of(db.dataSource()));
    Transactions.inTransaction(
        db.dataSource(),
        conn -> {
          outbox.append(
              conn,
              Event.builder()
                  .aggregate(type, correlation, version)
                  .eventType(eventType)
                  .payload("{}")
                  .headers(EventHeaders.builder().correlationId(correlation).build())
                  .occurredAt(at)
                  .build());
          return null;
        });
  }

  @AfterAll
  static void drop() {
    for (IsolatedDatabase db : new IsolatedDatabase[] {orders, payments}) {
      if (db != null) {
        db.close();
      }
    }
  }

  @Test
  void theTrailListsOneTransactionsEventsAcrossServicesInOrder() throws Exception {
    Cli table =
        Cli.run(
            "trail",
            "tx-1",
            "--service",
            "order=" + orders.jdbcUrl(),
            "--service",
            "payment=" + payments.jdbcUrl());
    assertThat(table.status()).as(table.err()).isZero();
    assertThat(table.out()).startsWith("trail tx-1: 3 events");
    assertThat(table.out().indexOf("OrderPlaced"))
        .isLessThan(table.out().indexOf("PaymentAuthorized"));
    assertThat(table.out().indexOf("PaymentAuthorized"))
        .isLessThan(table.out().indexOf("OrderConfirmed"));
    assertThat(table.out()).contains("+40 ms", "NOT PUBLISHED", "not consumed");

    Cli json =
        Cli.run(
            "trail",
            "tx-1",
            "--service",
            "order=" + orders.jdbcUrl(),
            "--service",
            "payment=" + payments.jdbcUrl(),
            "--json");
    JsonNode trail = new ObjectMapper().readTree(json.out());
    assertThat(trail.get("correlation_id").asText()).isEqualTo("tx-1");
    assertThat(trail.get("events")).hasSize(3);
    assertThat(trail.get("events").get(1).get("service").asText()).isEqualTo("payment");
    assertThat(trail.get("events").get(1).get("published_at").isNull()).isTrue();
  }

  @Test
  void badInputIsRefusedWithWhatIsWrong() {
    Cli noService = Cli.run("trail", "tx-1");
    assertThat(noService.status()).isEqualTo(2);
    assertThat(noService.err()).contains("--service");

    Cli badUrl = Cli.run("trail", "tx-1", "--service", "order=postgres://db/orders");
    assertThat(badUrl.status()).isEqualTo(2);
    assertThat(badUrl.err()).contains("--service order", "not a PostgreSQL, MariaDB or MySQL");

    try (IsolatedDatabase empty = TestInfrastructure.postgres().createDatabase("cli_no_schema")) {
      Cli noSchema =
          Cli.run(
              "trail",
              "tx-1",
              "--service",
              "order=" + orders.jdbcUrl(),
              "--service",
              "ledger=" + empty.jdbcUrl());
      assertThat(noSchema.status()).isEqualTo(2);
      assertThat(noSchema.err()).contains("--service ledger has no tandem_outbox table");
    }

    Cli unreachable =
        Cli.run(
            "trail",
            "tx-1",
            "--service",
            "order=jdbc:postgresql://127.0.0.1:1/nowhere?connectTimeout=2");
    assertThat(unreachable.status()).isEqualTo(2);
    assertThat(unreachable.err()).contains("cannot connect to service order at");
  }
}
