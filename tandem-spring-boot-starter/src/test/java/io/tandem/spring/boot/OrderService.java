package io.tandem.spring.boot;

import io.tandem.core.Event;
import io.tandem.spring.TandemOutbox;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/** A business service as an application writes it: its change and its event in one transaction. */
public class OrderService {
  private final JdbcTemplate jdbc;
  private final TandemOutbox outbox;

  public OrderService(JdbcTemplate jdbc, TandemOutbox outbox) {
    this.jdbc = jdbc;
    this.outbox = outbox;
  }

  @Transactional
  public void place(String orderId, Event event, boolean failAfterAppend) {
    jdbc.update("INSERT INTO boot_orders (id) VALUES (?)", orderId);
    outbox.append(event);
    if (failAfterAppend) {
      throw new IllegalStateException("payment declined for " + orderId);
    }
  }

  @Transactional(readOnly = true)
  public void appendReadOnly(Event event) {
    outbox.append(event);
  }

  /** No @Transactional: the append must refuse to run. */
  public void appendWithoutTransaction(Event event) {
    outbox.append(event);
  }
}
