package io.tandem.bench;

import io.tandem.kafka.KafkaClientProperties;
import io.tandem.kafka.KafkaTransport;
import io.tandem.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The saga benchmark's floor: the checkout's eight messages and nine local commits with none of
 * Tandem's machinery, on the same five databases and the same broker. It answers what part of the
 * gap between the saga and its commit bound is the engine's and what part is the broker's and the
 * clients'.
 *
 * <p>Five nodes, an orchestrator and the four participants, each with its own database (the saga
 * run's), its own topic of 4 partitions, one Kafka consumer whose records go to {@code lanes}
 * worker threads by partition, and one producer with Tandem's producer settings. A checkout: the
 * orchestrator commits one row and sends to the first participant; a participant commits one row
 * and sends to the orchestrator; the orchestrator commits one row and sends to the next
 * participant, or counts the checkout done after the fourth reply. Each commit is one autocommitted
 * INSERT of a row with a primary key (the saga and the hop) and a JSON payload of the saga's size —
 * 9 commits and 8 messages per checkout, each message sent on its own (linger 0, idempotent,
 * acks=all) as soon as its commit returned. (Probe: {@code TANDEM_BENCH_FLOOR_LINGER_MS=N} gives
 * the floor's producers {@code linger.ms} N, so that they batch the sends of concurrent checkouts.)
 *
 * <p>What it leaves out, so that it costs less than any correct implementation: no outbox (the send
 * follows the commit directly, and a crash between them loses the message), no relay and its
 * marking transactions, no wait for the broker's acknowledgement, no inbox (the primary key is the
 * only duplicate check), no saga state, offsets committed automatically every 5 s, whatever was
 * handled. A saga engine that commits each step on its own and sends each message on its own cannot
 * be faster than this on the same machine.
 */
final class SagaFloor implements AutoCloseable {
  /** One floor run: checkouts per second, first start to last completion, and durations. */
  record Result(double sagasPerSec, double p50Millis, double p99Millis) {}

  private static final int NODES = 5;
  private static final int HOPS = 8;
  private static final int COMMITS_PER_CHECKOUT = HOPS + 1;
  private static final int QUEUE = 1_000;
  private static final Duration STALL_TIMEOUT = Duration.ofSeconds(60);

  private final List<BenchDatabase> databases;
  private final Map<String, String> kafkaClient;
  private final String[] topics = new String[NODES];
  private final List<KafkaProducer<String, byte[]>> producers = new ArrayList<>();
  private final List<KafkaConsumer<String, byte[]>> consumers = new ArrayList<>();
  private final List<Connection> connections = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final byte[] payload;
  private final String payloadText;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final AtomicLong sagaIds = new AtomicLong();
  private final Map<Long, Long> startedNanos = new ConcurrentHashMap<>();
  private final List<Double> durations = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger completed = new AtomicInteger();
  private final AtomicLong lastCompletionNanos = new AtomicLong();
  private volatile Semaphore permits = new Semaphore(0);
  private volatile boolean closing;

  /**
   * Creates the floor's table in each database and its topics, and starts its consumers and
   * workers.
   *
   * @param databases the orchestrator's database first, then the four participants'
   */
  SagaFloor(
      List<BenchDatabase> databases,
      String bootstrap,
      Map<String, String> kafkaClient,
      String topicPrefix,
      int lanes)
      throws SQLException {
    this.kafkaClient = Map.copyOf(kafkaClient);
    if (databases.size() != NODES) {
      throw new IllegalArgumentException("the floor needs 5 databases, got " + databases.size());
    }
    this.databases = databases;
    this.payload =
        ("{\"orderId\":\"order-floor-000000\",\"customer\":\"customer-1\",\"sku\":\"sku-1\","
                + "\"quantity\":1,\"amountCents\":1999}")
            .getBytes(StandardCharsets.UTF_8);
    this.payloadText = new String(payload, StandardCharsets.UTF_8);
    try {
      for (int node = 0; node < NODES; node++) {
        databases
            .get(node)
            .execute(
                "CREATE TABLE bench_floor_step (saga bigint NOT NULL, hop integer NOT NULL,"
                    + " payload text NOT NULL, PRIMARY KEY (saga, hop))");
        topics[node] = topicPrefix + "floor-" + node;
        KafkaBroker.external(bootstrap, kafkaClient)
            .createTopic(topics[node], SagaBenchSystem.PARTITIONS);
      }
      for (int node = 0; node < NODES; node++) {
        startNode(node, bootstrap, topicPrefix, lanes);
      }
    } catch (SQLException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private void startNode(int node, String bootstrap, String topicPrefix, int lanes)
      throws SQLException {
    String linger = System.getenv("TANDEM_BENCH_FLOOR_LINGER_MS"); // probe only
    KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            KafkaClientProperties.producer(
                kafkaClient,
                KafkaTransport.producerConfig(
                    bootstrap, linger == null ? Map.of() : Map.of("linger.ms", linger))));
    producers.add(producer);
    KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            KafkaClientProperties.consumer(
                kafkaClient,
                Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap,
                    ConsumerConfig.GROUP_ID_CONFIG,
                    topicPrefix + "floor-" + node,
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                    "earliest",
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                    "true",
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                    StringDeserializer.class,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                    ByteArrayDeserializer.class)));
    consumers.add(consumer);
    consumer.subscribe(List.of(topics[node]));
    List<BlockingQueue<ConsumerRecord<String, byte[]>>> queues = new ArrayList<>();
    for (int lane = 0; lane < lanes; lane++) {
      BlockingQueue<ConsumerRecord<String, byte[]>> queue = new ArrayBlockingQueue<>(QUEUE);
      queues.add(queue);
      Connection c = databases.get(node).database.dataSource().getConnection();
      connections.add(c);
      PreparedStatement insert = insertStatement(c);
      thread(
          "floor-" + node + "-lane-" + lane,
          () -> {
            while (!closing) {
              ConsumerRecord<String, byte[]> r = queue.poll(100, TimeUnit.MILLISECONDS);
              if (r != null) {
                handle(node, r, insert, producer);
              }
            }
          });
    }
    thread(
        "floor-" + node + "-poll",
        () -> {
          try {
            while (!closing) {
              ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(500));
              for (ConsumerRecord<String, byte[]> r : records) {
                queues.get(r.partition() % queues.size()).put(r);
              }
            }
          } catch (WakeupException e) {
            // close() ends the loop
          }
        });
  }

  private PreparedStatement insertStatement(Connection c) throws SQLException {
    c.setAutoCommit(true);
    return c.prepareStatement("INSERT INTO bench_floor_step (saga, hop, payload) VALUES (?, ?, ?)");
  }

  /** A record for {@code node}: commit its row, then send the next hop or count the saga done. */
  private void handle(
      int node,
      ConsumerRecord<String, byte[]> r,
      PreparedStatement insert,
      KafkaProducer<String, byte[]> producer)
      throws SQLException {
    long saga = Long.parseLong(r.key());
    int hop = r.value()[0];
    commitStep(insert, saga, hop);
    if (node > 0) {
      send(producer, 0, saga, hop + 1); // the participant's reply
    } else if (hop < HOPS) {
      send(producer, hop / 2 + 1, saga, hop + 1); // the next participant's command
    } else {
      Long started = startedNanos.remove(saga);
      long now = System.nanoTime();
      if (started != null) {
        durations.add((now - started) / 1e6);
      }
      lastCompletionNanos.accumulateAndGet(now, Math::max);
      completed.incrementAndGet();
      permits.release();
    }
  }

  private void commitStep(PreparedStatement insert, long saga, int hop) throws SQLException {
    insert.setLong(1, saga);
    insert.setInt(2, hop);
    insert.setString(3, payloadText);
    insert.executeUpdate();
  }

  private void send(KafkaProducer<String, byte[]> producer, int node, long saga, int hop) {
    byte[] value = new byte[payload.length + 1];
    value[0] = (byte) hop;
    System.arraycopy(payload, 0, value, 1, payload.length);
    producer.send(
        new ProducerRecord<>(topics[node], Long.toString(saga), value),
        (metadata, e) -> {
          if (e != null) {
            failure.compareAndSet(null, e);
          }
        });
  }

  /**
   * Runs {@code count} checkouts, at most {@code inFlight} at once, from {@code starters} threads.
   *
   * @throws IllegalStateException if a node failed or no checkout completed for a minute
   */
  Result run(int count, int inFlight, int starters) throws Exception {
    completed.set(0);
    durations.clear();
    permits = new Semaphore(inFlight);
    AtomicInteger started = new AtomicInteger();
    AtomicLong firstStart = new AtomicLong(Long.MAX_VALUE);
    List<Thread> starting = new ArrayList<>();
    for (int s = 0; s < starters; s++) {
      Connection c = databases.get(0).database.dataSource().getConnection();
      connections.add(c);
      PreparedStatement insert = insertStatement(c);
      starting.add(
          thread(
              "floor-starter-" + s,
              () -> {
                while (!closing && started.getAndIncrement() < count) {
                  permits.acquire();
                  long saga = sagaIds.incrementAndGet();
                  long now = System.nanoTime();
                  firstStart.accumulateAndGet(now, Math::min);
                  startedNanos.put(saga, now);
                  commitStep(insert, saga, 0);
                  send(producers.get(0), 1, saga, 1);
                }
              }));
    }
    long lastProgress = System.nanoTime();
    int lastDone = -1;
    while (completed.get() < count) {
      Throwable failed = failure.get();
      if (failed != null) {
        throw new IllegalStateException("the floor run failed: " + failed, failed);
      }
      int done = completed.get();
      if (done != lastDone) {
        lastDone = done;
        lastProgress = System.nanoTime();
      } else if (System.nanoTime() - lastProgress > STALL_TIMEOUT.toNanos()) {
        throw new IllegalStateException(
            "no floor checkout completed for "
                + STALL_TIMEOUT
                + " ("
                + done
                + " of "
                + count
                + ")");
      }
      TimeUnit.MILLISECONDS.sleep(20); // the watcher's sampling interval
    }
    for (Thread t : starting) {
      t.join();
    }
    double seconds = (lastCompletionNanos.get() - firstStart.get()) / 1e9;
    Percentiles p = new Percentiles(new ArrayList<>(durations));
    return new Result(count / seconds, p.at(0.50), p.at(0.99));
  }

  /**
   * Checks that the floor committed {@value #COMMITS_PER_CHECKOUT} rows, over the five databases,
   * for each of {@code checkouts} completed checkouts.
   *
   * @throws IllegalStateException naming both counts when they differ
   */
  void verify(long checkouts) throws SQLException {
    long rows = 0;
    for (BenchDatabase db : databases) {
      rows += db.count("SELECT count(*) FROM bench_floor_step");
    }
    long expected = COMMITS_PER_CHECKOUT * checkouts;
    if (rows != expected) {
      throw new IllegalStateException(
          "the floor committed "
              + rows
              + " step rows, expected "
              + COMMITS_PER_CHECKOUT
              + " per checkout = "
              + expected
              + ": the floor run is invalid");
    }
  }

  private interface Body {
    void run() throws Exception;
  }

  private Thread thread(String name, Body body) {
    Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (Exception | Error e) {
                if (!closing) {
                  failure.compareAndSet(null, e);
                }
              }
            },
            name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
    return t;
  }

  @Override
  public void close() {
    closing = true;
    permits.release(Integer.MAX_VALUE / 2);
    for (KafkaConsumer<String, byte[]> c : consumers) {
      c.wakeup();
    }
    for (Thread t : threads) {
      try {
        t.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (KafkaConsumer<String, byte[]> c : consumers) {
      c.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
    for (KafkaProducer<String, byte[]> p : producers) {
      p.close(Duration.ofSeconds(5));
    }
    for (Connection c : connections) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // the database is dropped right after
      }
    }
  }
}
