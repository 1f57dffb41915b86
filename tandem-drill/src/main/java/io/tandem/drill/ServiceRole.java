package io.tandem.drill;

import com.zaxxer.hikari.HikariDataSource;
import io.tandem.core.ConfiguredFaults;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.Outbox;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The {@code service} role: {@code --writers} threads commit changes {@code 1..--events} (those
 * already in {@code drill_changes} are skipped: a successor carries on), {@code --per-commit} of
 * them per transaction ({@link ChangeWriter}), at {@code --rate} changes per second (0: as fast as
 * it can). After each commit it appends the block's event ids to {@code --ack-log} (what the
 * database acknowledged), reaches {@link FaultInjector#SERVICE_AFTER_COMMIT} once, and with {@code
 * --mode direct} publishes the block itself (the unprotected form). Prints {@link RoleMain#DONE}
 * when done.
 */
final class ServiceRole {
  private ServiceRole() {}

  static void run(Args a) throws Exception {
    int events = a.intValue("events", 300);
    int writers = a.intValue("writers", 2);
    int perCommit = a.intValue("per-commit", 1);
    int rate = a.intValue("rate", 0);
    boolean direct = a.get("mode", "outbox").equals("direct");
    String ackLog = a.get("ack-log", null);
    FaultInjector faults = ConfiguredFaults.fromSystemProperty();
    HikariDataSource ds = RoleMain.pool(a.required("jdbc-url"), "drill-service", writers + 1);
    KafkaTransport transport = direct ? directTransport(a) : null;
    ChangeWriter writer =
        new ChangeWriter(
            ds, Outbox.create(), direct, a.intValue("aggregates", 20), a.intValue("poison-at", 0));
    int already = countChanges(ds);
    AtomicInteger next = new AtomicInteger(already + 1);
    long startNanos = System.nanoTime();
    RoleMain.ready("service from change " + (already + 1) + " of " + events);
    Thread[] threads = new Thread[writers];
    for (int w = 0; w < writers; w++) {
      threads[w] =
          new Thread(
              () -> {
                for (int n = next.getAndAdd(perCommit);
                    n <= events;
                    n = next.getAndAdd(perCommit)) {
                  int last = Math.min(events, n + perCommit - 1);
                  pace(rate, startNanos, last - already);
                  List<Event> committed = writer.commitWithRetry(n, last);
                  appendAcks(ackLog, committed);
                  faults.reached(FaultInjector.SERVICE_AFTER_COMMIT);
                  if (direct) {
                    publishDirectly(transport, committed);
                  }
                }
              },
              "drill-writer-" + w);
      threads[w].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    if (transport != null) {
      transport.close();
    }
    System.out.println(RoleMain.DONE);
    System.out.flush();
    ds.close();
  }

  /** A service that publishes after its commit and gives up on a failed send. */
  private static KafkaTransport directTransport(Args a) {
    return KafkaTransport.builder()
        .bootstrapServers(a.required("kafka-bootstrap"))
        .clientProperties(KafkaClientProperties.inherited())
        .source("/tandem/drill/service")
        .topicRouter(TopicRouter.fixed(a.required("topic")))
        .producerProperty("delivery.timeout.ms", "10000")
        .producerProperty("request.timeout.ms", "5000")
        .build();
  }

  private static void publishDirectly(KafkaTransport transport, List<Event> events) {
    List<PublishOutcome> out = transport.publish(events, Duration.ofSeconds(5));
    for (int i = 0; i < out.size(); i++) {
      if (!out.get(i).acknowledged()) {
        System.out.println("send failed, given up: " + events.get(i).eventId());
      }
    }
  }

  private static void pace(int rate, long startNanos, int n) {
    if (rate <= 0) {
      return;
    }
    long wait = startNanos + (long) (n * (1e9 / rate)) - System.nanoTime();
    if (wait > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Changes already committed (by a predecessor); waits up to 120 s for the database. */
  private static int countChanges(DataSource ds) throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try (Connection c = ds.getConnection();
          PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM drill_changes");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      } catch (SQLTransientConnectionException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        System.out.println("no connection to the service database yet, retrying: " + e);
        TimeUnit.MILLISECONDS.sleep(500);
      }
    }
  }

  private static synchronized void appendAcks(String ackLog, List<Event> events) {
    if (ackLog == null) {
      return;
    }
    String lines = events.stream().map(e -> e.eventId() + "\n").collect(Collectors.joining());
    try {
      Files.writeString(
          Path.of(ackLog),
          lines,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new IllegalStateException("cannot append to the ack log " + ackLog, e);
    }
  }
}
