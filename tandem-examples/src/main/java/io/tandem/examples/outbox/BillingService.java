package io.tandem.examples.outbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.core.Event;
import io.tandem.inbox.InboxProcessor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
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

  /** The event this thread invoiced last: read right after the commit, for the demo's latency. */
  private static final ThreadLocal<UUID> LAST_INVOICED = new ThreadLocal<>();

  private final DataSource dataSource;
  private final InboxProcessor processor;

  public BillingService(DataSource dataSource) {
    this.dataSource = dataSource;
    this.processor =
        InboxProcessor.builder()
            .dataSource(dataSource)
            .consumer(CONSUMER)
            // Billing sees one event per order (its confirmation, at the order's version 2), so
            // there is no per-aggregate order to keep: the inbox alone stops duplicates.
            .ordered(false)
            .on(OrderService.ORDER_CONFIRMED, BillingService::invoice)
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
    LAST_INVOICED.set(event.eventId());
  }

  /** Applies deliveries: one invoice per event id; a duplicate changes nothing. */
  public InboxProcessor processor() {
    return processor;
  }

  /**
   * The event the calling thread invoiced last. A runner's {@code afterApplied} callback runs on
   * the thread that applied the message, right after its commit: there, this is that message.
   */
  public static UUID lastInvoicedOnThisThread() {
    return LAST_INVOICED.get();
  }
}
