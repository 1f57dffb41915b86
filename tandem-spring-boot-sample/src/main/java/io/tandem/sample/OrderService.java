package io.tandem.sample;

import io.tandem.core.Event;
import io.tandem.spring.TandemOutbox;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order row and its OrderPlaced event commit in one transaction. */
@Service
public class OrderService {
  private final JdbcTemplate jdbc;
  private final TandemOutbox outbox;

  public OrderService(JdbcTemplate jdbc, TandemOutbox outbox) {
    this.jdbc = jdbc;
    this.outbox = outbox;
  }

  @Transactional
  public String place(String item, int quantity) {
    if (quantity < 1) {
      throw new IllegalArgumentException("quantity must be at least 1, was " + quantity);
    }
    String id = UUID.randomUUID().toString();
    jdbc.update(
        "INSERT INTO orders (id, item, quantity, status, version) VALUES (?, ?, ?, 'PLACED', 1)",
        id,
        item,
        quantity);
    outbox.append(
        Event.builder()
            .aggregate("Order", id, 1)
            .eventType("OrderPlaced")
            .payload(
                "{\"orderId\":\""
                    + id
                    + "\",\"item\":"
                    + json(item)
                    + ",\"quantity\":"
                    + quantity
                    + "}")
            .build());
    return id;
  }

  private static String json(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
