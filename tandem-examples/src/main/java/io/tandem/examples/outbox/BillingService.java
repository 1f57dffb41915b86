package io.tandem.examples.outbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.core.Event;
import io.tandem.inbox.HandleResult;
import io.tandem.inbox.Inbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The billing service of the reference flow: for each {@code OrderConfirmed} it writes one invoice,
 * through its inbox, in its own database. The invoice table has no unique key on the order on
 * purpose: only the inbox stands between a duplicate delivery and a second invoice.
 */
public final class BillingService {
  public static final String CONSUMER = "billing";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DataSource dataSource;
  private final Inbox inbox;

  public BillingService(DataSource dataSource) {
    this.dataSource = dataSource;
    this.inbox = Inbox.builder().dataSource(dataSource).build();
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

  /** Applies one delivery; a duplicate changes nothing. */
  public HandleResult on(Event event) throws SQLException {
    return inbox.handle(CONSUMER, event, BillingService::invoice);
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

  public Inbox inbox() {
    return inbox;
  }
}
