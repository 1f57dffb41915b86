package io.tandem.examples.outbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.core.Event;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The billing service of the reference flow: for each {@code OrderConfirmed} it writes one invoice,
 * through its inbox, in its own database. The invoice table has no unique key on the order on
 * purpose: only the inbox stands between a duplicate delivery and a second invoice. Its {@link
 * #processor()} is what a {@link io.tandem.inbox.ConsumerRunner} applies deliveries with.
 */
public final class BillingService {
  public static final String CONSUMER = "billing";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DataSource dataSource;
  private final InboxProcessor processor;

  public BillingService(DataSource dataSource) {
    this(dataSource, eventId -> {});
  }

  /**
   * With {@code invoiced} told of each event id once its invoice committed (after the commit,
   * before the acknowledgement; once per event, also when a batch applied several), for the demo's
   * latency.
   */
  public BillingService(DataSource dataSource, Consumer<UUID> invoiced) {
    this.dataSource = dataSource;
    this.processor =
        InboxProcessor.builder()
            .dataSource(dataSource)
            .consumer(CONSUMER)
            // Billing sees one event per order (its confirmation, at the order's version 2), so
            // there is no per-aggregate order to keep: the inbox alone stops duplicates.
            .ordered(false)
            .on(OrderService.ORDER_CONFIRMED, BillingService::invoice)
            .afterCommit(
                (event, outcome) -> {
                  if (outcome == Outcome.APPLIED) {
                    invoiced.accept(event.eventId());
                  }
                })
            .build();
  }

  public void createSchema() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          """
          CREATE TABLE IF NOT EXISTS demo_invoices (
              id           bigserial PRIMARY KEY,
              order_id     text   NOT NULL,
              amount_cents bigint NOT NULL,
              event_id     uuid   NOT NULL,
              created_at   timestamptz NOT NULL DEFAULT now())
          """);
    }
  }

  private static void invoice(Connection c, Event event) throws SQLException {
    JsonNode payload;
    try {
      payload = JSON.readTree(event.payload());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("OrderConfirmed payload is not JSON", e);
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO demo_invoices (order_id, amount_cents, event_id) VALUES (?, ?, ?)")) {
      ps.setString(1, payload.path("orderId").asText(event.aggregateId()));
      ps.setLong(2, payload.path("totalCents").asLong());
      ps.setObject(3, event.eventId());
      ps.executeUpdate();
    }
  }

  /** Applies deliveries: one invoice per event id; a duplicate changes nothing. */
  public InboxProcessor processor() {
    return processor;
  }
}
