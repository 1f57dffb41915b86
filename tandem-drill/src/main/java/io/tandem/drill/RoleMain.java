package io.tandem.drill;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.cdc.CdcRelay;
import io.tandem.core.ConfiguredFaults;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.jdbc.Transactions;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxRelay;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The processes a drill starts, one role each: {@code service} (writes business changes and their
 * events), {@code relay} (publishes the outbox to Kafka), {@code consumer} (applies events through
 * its inbox). Each prints {@value #READY} when it runs; fault points are off unless {@code
 * -Dtandem.faults=...} (see {@link ConfiguredFaults}) is given.
 *
 * <pre>
 * java -cp ... io.tandem.drill.RoleMain service  --jdbc-url U --events N --aggregates A
 *     [--writers W] [--rate R] [--mode outbox|direct --kafka-bootstrap B --topic T]
 *     [--poison-at K] [--ack-log FILE]
 * java -cp ... io.tandem.drill.RoleMain relay    --jdbc-url U --kafka-bootstrap B --topic T --id I
 *     [--mode polling|cdc --slot S [--heartbeat-ms MS]]
 * java -cp ... io.tandem.drill.RoleMain consumer --jdbc-url U --kafka-bootstrap B --topic T
 *     --group G [--mode inbox|bypass] [--unordered]
 * </pre>
 */
public final class RoleMain {
  /** Printed by every role once it runs. */
  public static final String READY = "DRILL-ROLE-READY";

  /** Printed by the service once it committed everything it had to. */
  public static final String DONE = "DRILL-SERVICE-DONE";

  /** The consumer name of the drill consumer (its inbox rows and dead letters). */
  public static final String CONSUMER = "drill-consumer";

  static final String AGGREGATE_TYPE = "Account";
  static final String EVENT_TYPE = "AccountChanged";

  private RoleMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: RoleMain service|relay|consumer --option value ...");
      System.exit(2);
    }
    Args a = new Args(args, 1);
    switch (args[0]) {
      case "service" -> service(a);
      case "relay" -> relay(a);
      case "consumer" -> consumer(a);
      default -> {
        System.err.println("unknown role " + args[0]);
        System.exit(2);
      }
    }
  }

  static HikariDataSource pool(String jdbcUrl, String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setPoolName(name);
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(5_000);
    config.setInitializationFailTimeout(-1);
    return new HikariDataSource(config);
  }

  private static void ready(String what) {
    System.out.println(READY + " " + what);
    System.out.flush();
  }

  // ---------------------------------------------------------------- service

  private static void service(Args a) throws Exception {
    int events = a.intValue("events", 300);
    int aggregates = a.intValue("aggregates", 20);
    int writers = a.intValue("writers", 2);
    int rate = a.intValue("rate", 0);
    int poisonAt = a.intValue("poison-at", 0);
    boolean direct = a.get("mode", "outbox").equals("direct");
    String ackLog = a.get("ack-log", null);
    FaultInjector faults = ConfiguredFaults.fromSystemProperty();
    HikariDataSource ds = pool(a.required("jdbc-url"), "drill-service", writers + 1);
    KafkaTransport transport =
        direct
            ? KafkaTransport.builder()
                .bootstrapServers(a.required("kafka-bootstrap"))
                .clientProperties(KafkaClientProperties.inherited())
                .source("/tandem/drill/service")
                .topicRouter(TopicRouter.fixed(a.required("topic")))
                // A service that publishes after its commit and gives up on a failed send.
                .producerProperty("delivery.timeout.ms", "10000")
                .producerProperty("request.timeout.ms", "5000")
                .build()
            : null;
    Outbox outbox = Outbox.create();
    int already = countChanges(ds);
    AtomicInteger next = new AtomicInteger(already + 1);
    long startNanos = System.nanoTime();
    ready("service from change " + (already + 1) + " of " + events);
    Thread[] threads = new Thread[writers];
    for (int w = 0; w < writers; w++) {
      threads[w] =
          new Thread(
              () -> {
                for (int n = next.getAndIncrement(); n <= events; n = next.getAndIncrement()) {
                  pace(rate, startNanos, n - already);
                  Event event = commitWithRetry(ds, outbox, direct, n, aggregates, poisonAt);
                  appendAck(ackLog, event.eventId());
                  faults.reached(FaultInjector.SERVICE_AFTER_COMMIT);
                  if (direct) {
                    List<PublishOutcome> out =
                        transport.publish(List.of(event), Duration.ofSeconds(5));
                    if (!out.get(0).acknowledged()) {
                      System.out.println("send failed, given up: " + event.eventId());
                    }
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
    System.out.println(DONE);
    System.out.flush();
    ds.close();
  }

  private static void pace(int rate, long startNanos, int n) {
    if (rate <= 0) {
      return;
    }
    long due = startNanos + (long) (n * (1e9 / rate));
    long wait = due - System.nanoTime();
    if (wait > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static int countChanges(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM drill_changes");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** Commits change {@code n}; retries while the database is unreachable (a restart). */
  private static Event commitWithRetry(
      DataSource ds, Outbox outbox, boolean direct, int n, int aggregates, int poisonAt) {
    String account = "account-" + (n % aggregates);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try {
        return Transactions.inTransaction(
            ds,
            c -> {
              long version;
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "UPDATE drill_accounts SET version = version + 1 WHERE id = ?"
                          + " RETURNING version")) {
                ps.setString(1, account);
                try (ResultSet rs = ps.executeQuery()) {
                  rs.next();
                  version = rs.getLong(1);
                }
              }
              Event event =
                  Event.builder()
                      .aggregate(AGGREGATE_TYPE, account, version)
                      .eventType(EVENT_TYPE)
                      .payload(
                          "{\"change\":"
                              + n
                              + ",\"version\":"
                              + version
                              + (n == poisonAt ? "," + DrillEffects.POISON : "")
                              + "}")
                      .build();
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "INSERT INTO drill_changes (event_id, aggregate_id, version)"
                          + " VALUES (?, ?, ?)")) {
                ps.setObject(1, event.eventId());
                ps.setString(2, account);
                ps.setLong(3, version);
                ps.executeUpdate();
              }
              if (!direct) {
                outbox.append(c, event);
              }
              return event;
            });
      } catch (RuntimeException | SQLException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("change " + n + " could not be committed", e);
        }
        System.out.println("commit of change " + n + " failed, retrying: " + e.getMessage());
        sleep(200);
      }
    }
  }

  private static synchronized void appendAck(String ackLog, UUID eventId) {
    if (ackLog == null) {
      return;
    }
    try {
      Files.writeString(
          Path.of(ackLog),
          eventId + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new IllegalStateException("cannot append to the ack log " + ackLog, e);
    }
  }

  private static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------- relay

  private static void relay(Args a) throws InterruptedException {
    if (a.get("mode", "polling").equals("cdc")) {
      cdcRelay(a);
      return;
    }
    HikariDataSource ds = pool(a.required("jdbc-url"), "drill-relay", 4);
    KafkaTransport transport =
        KafkaTransport.builder()
            .bootstrapServers(a.required("kafka-bootstrap"))
            .clientProperties(KafkaClientProperties.inherited())
            .source("/tandem/drill/service")
            .topicRouter(TopicRouter.fixed(a.required("topic")))
            .build();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(ds)
            .transport(transport)
            .relayId(a.required("id"))
            .leaseDuration(Duration.ofSeconds(4))
            .heartbeatInterval(Duration.ofMillis(500))
            .publishTimeout(Duration.ofSeconds(2))
            .pollInterval(Duration.ofMillis(200))
            .batchSize(a.intValue("batch", 50))
            .faultInjector(ConfiguredFaults.fromSystemProperty())
            .build();
    relay.start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  relay.close();
                  transport.close();
                  ds.close();
                },
                "drill-relay-stop"));
    ready("relay " + a.required("id"));
    new CountDownLatch(1).await();
  }

  /** The CDC relay (PostgreSQL's WAL through Debezium) on slot {@code --slot}, to the topic. */
  private static void cdcRelay(Args a) throws InterruptedException {
    String jdbcUrl = a.required("jdbc-url");
    HikariDataSource ds = pool(jdbcUrl, "drill-cdc-relay", 4);
    KafkaTransport transport =
        KafkaTransport.builder()
            .bootstrapServers(a.required("kafka-bootstrap"))
            .clientProperties(KafkaClientProperties.inherited())
            .source("/tandem/drill/service")
            .topicRouter(TopicRouter.fixed(a.required("topic")))
            .build();
    CdcRelay relay =
        CdcRelay.builder()
            .jdbcUrl(jdbcUrl)
            .dataSource(ds)
            .transport(transport)
            .slotName(a.required("slot"))
            .relayId(a.required("id"))
            .heartbeatInterval(Duration.ofMillis(a.intValue("heartbeat-ms", 500)))
            .offsetFlushInterval(Duration.ofMillis(200))
            .drainInterval(Duration.ofMillis(200))
            .monitorInterval(Duration.ofSeconds(1))
            .publishTimeout(Duration.ofSeconds(2))
            .faultInjector(ConfiguredFaults.fromSystemProperty())
            .build();
    relay.start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  relay.close();
                  transport.close();
                  ds.close();
                },
                "drill-cdc-relay-stop"));
    ready("cdc relay " + a.required("id"));
    new CountDownLatch(1).await();
  }

  // ---------------------------------------------------------------- consumer

  private static void consumer(Args a) throws InterruptedException {
    HikariDataSource ds = pool(a.required("jdbc-url"), "drill-consumer", 6);
    FaultInjector faults = ConfiguredFaults.fromSystemProperty();
    MessageSource kafka =
        KafkaMessageSource.builder()
            .bootstrapServers(a.required("kafka-bootstrap"))
            .clientProperties(KafkaClientProperties.inherited())
            .groupId(a.required("group"))
            .topics(List.of(a.required("topic")))
            // A dead member's partitions move after 6 s instead of the default 45 s.
            .consumerProperty("session.timeout.ms", "6000")
            .consumerProperty("heartbeat.interval.ms", "1500")
            .build();
    MessageSource source = new LoggingSource(kafka, ds);
    AutoCloseable running;
    if (a.get("mode", "inbox").equals("bypass")) {
      source.start(new BypassSink(ds, faults));
      running = source;
    } else {
      InboxProcessor processor =
          InboxProcessor.builder()
              .dataSource(ds)
              .consumer(CONSUMER)
              .onAnyEventType(1, DrillEffects::apply)
              .ordered(!a.flag("unordered"))
              .faultInjector(faults)
              .build();
      ConsumerRunner runner =
          ConsumerRunner.builder()
              .source(source)
              .processor(processor)
              .concurrency(4)
              .sweepInterval(Duration.ofSeconds(1))
              .build();
      runner.start();
      running = runner;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    running.close();
                  } catch (Exception e) {
                    // stopping anyway
                  }
                  ds.close();
                },
                "drill-consumer-stop"));
    ready("consumer " + a.required("group"));
    new CountDownLatch(1).await();
  }

  /** Logs every message received into {@code drill_deliveries} before handing it on. */
  private static final class LoggingSource implements MessageSource {
    private final MessageSource delegate;
    private final DataSource ds;

    LoggingSource(MessageSource delegate, DataSource ds) {
      this.delegate = delegate;
      this.ds = ds;
    }

    @Override
    public String transport() {
      return delegate.transport();
    }

    @Override
    public String describe() {
      return delegate.describe();
    }

    @Override
    public void start(MessageSink sink) {
      delegate.start(
          message -> {
            Event event;
            try {
              event = message.decode();
            } catch (RuntimeException e) {
              event = null;
            }
            DrillEffects.logDelivery(ds, event);
            return sink.accept(message);
          });
    }

    @Override
    public boolean isRunning() {
      return delegate.isRunning();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  /**
   * The consumer with its protection switched off: applies each message in its own transaction
   * without the inbox (no dedup, no ordering guard), then acknowledges; a message whose effect
   * fails is logged and dropped.
   */
  private static final class BypassSink implements MessageSink {
    private final DataSource ds;
    private final FaultInjector faults;

    BypassSink(DataSource ds, FaultInjector faults) {
      this.ds = ds;
      this.faults = faults;
    }

    @Override
    public boolean accept(InboundMessage message) {
      try {
        Event event = message.decode();
        Transactions.inTransaction(
            ds,
            c -> {
              DrillEffects.apply(c, event);
              return null;
            });
      } catch (RuntimeException | SQLException e) {
        System.out.println("dropped a message whose effect failed: " + e.getMessage());
      }
      faults.reached(FaultInjector.CONSUMER_AFTER_COMMIT);
      message.acknowledge();
      return true;
    }
  }
}
