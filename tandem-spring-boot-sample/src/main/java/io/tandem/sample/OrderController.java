package io.tandem.sample;

import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders {"item":"book","quantity":2}} and {@code GET /orders/{id}}. */
@RestController
public class OrderController {
  private final OrderService orders;
  private final JdbcTemplate jdbc;

  public OrderController(OrderService orders, JdbcTemplate jdbc) {
    this.orders = orders;
    this.jdbc = jdbc;
  }

  /** The order request. */
  public record PlaceOrder(String item, int quantity) {}

  @PostMapping("/orders")
  public Map<String, String> place(@RequestBody PlaceOrder request) {
    return Map.of("orderId", orders.place(request.item(), request.quantity()));
  }

  /** A request the service refuses is the client's error: 400 with the reason. */
  @ExceptionHandler(IllegalArgumentException.class)
  public ResponseEntity<Map<String, String>> refused(IllegalArgumentException e) {
    return ResponseEntity.badRequest().body(Map.of("error", e.getMessage()));
  }

  /** The order and, once the shipping consumer applied its event, its shipment. */
  @GetMapping("/orders/{id}")
  public ResponseEntity<Map<String, Object>> get(@PathVariable String id) {
    var rows =
        jdbc.queryForList(
            "SELECT o.id, o.item, o.quantity, o.status, s.shipment_id FROM orders o"
                + " LEFT JOIN shipments s ON s.order_id = o.id WHERE o.id = ?",
            id);
    return rows.isEmpty() ? ResponseEntity.notFound().build() : ResponseEntity.ok(rows.get(0));
  }
}
