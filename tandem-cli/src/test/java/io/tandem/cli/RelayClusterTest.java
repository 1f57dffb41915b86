package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxStatus;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestInfrastructure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Standalone relays as separate processes: three share the partitions, one is killed with SIGKILL
 * mid-stream, a fourth joins; at the consumer every aggregate's versions arrive in order
 * (duplicates allowed), with no gap and no loss. Then SIGTERM stops the rest gracefully.
 */
@Tag("slow")
class RelayClusterTest {
  private static final int AGGREGATES = 60;
  private static final int EVENTS = 3_000;

  private final List<RelayProcess> relays = new ArrayList<>();
  private IsolatedDatabase db;

  @AfterEach
  void tearDown() {
    relays.forEach(RelayProcess::close);
    if (db != null) {
      db.close();
    }
  }

  @Test
  void onPostgresKilledAndJoiningRelaysKeepEveryAggregateInOrderWithNothingLost() throws Exception {
    killedAndJoiningRelaysKeepEveryAggregateInOrderWithNothingLost(TestInfrastructure.postgres());
  }

  @Test
  @RequiresMariaDb
  void onMariaDbKilledAndJoiningRelaysKeepEveryAggregateInOrderWithNothingLost() throws Exception {
    killedAndJoiningRelaysKeepEveryAggregateInOrderWithNothingLost(TestInfrastructure.mariadb());
  }

  private void killedAndJoiningRelaysKeepEveryAggregateInOrderWithNothingLost(DatabaseServer server)
      throws Exception {
    db = server.createDatabase("relay_cluster");
    String kafka = TestInfrastructure.kafka().bootstrapServers();
    String prefix = "cluster-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    String topic = prefix + "account";
    TestInfrastructure.kafka().createTopic(topic, 6);
    int migrated =
        new CommandLine(new TandemCommand()).execute("migrate", "--jdbc-url", db.jdbcUrl());
    assertThat(migrated).isZero();
    OutboxOperations ops = OutboxOperations.create(db.dataSource());

    for (int i = 1; i <= 3; i++) {
      relays.add(RelayProcess.start("relay-" + i, db.jdbcUrl(), kafka, prefix));
    }
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> ops.status().instances().size() == 3 && ops.status().unowned().isEmpty());
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      StringBuilder why = new StringBuilder("the three relays did not share the partitions: ");
      why.append(ops.status());
      for (RelayProcess r : relays) {
        why.append("\n--- ").append(r.relayId).append(" alive=").append(r.process.isAlive());
        why.append('\n').append(r.output());
      }
      throw new AssertionError(why.toString(), e);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> relays.get(0).httpPort() > 0);
    var health = relays.get(0).get("/health");
    assertThat(health.statusCode()).isEqualTo(200);
    var body = new com.fasterxml.jackson.databind.ObjectMapper().readTree(health.body());
    assertThat(body.get("status").asText()).isEqualTo("UP");
    assertThat(body.get("relay_id").asText()).isEqualTo("relay-1");
    assertThat(body.get("failing").asBoolean()).isFalse();
    assertThat(relays.get(0).get("/metrics").body()).contains("tandem_outbox_pending");

    AtomicInteger written = new AtomicInteger();
    Thread writer =
        new Thread(
            () -> {
              Outbox outbox = Outbox.create();
              for (int i = 0; i < EVENTS; i += 20) {
                List<Event> batch = new ArrayList<>();
                for (int j = i; j < i + 20; j++) {
                  batch.add(
                      Event.builder()
                          .aggregate("Account", "acc-" + (j % AGGREGATES), j / AGGREGATES + 1)
                          .eventType("Deposited")
                          .payload("{\"n\":" + j + "}")
                          .build());
                }
                Transactions.inTransaction(
                    db.dataSource(),
                    c -> {
                      outbox.appendAll(c, batch);
                      return null;
                    });
                written.addAndGet(batch.size());
                try {
                  Thread.sleep(20); // pacing the writer, not waiting for an outcome
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
              }
            },
            "cluster-writer");
    writer.start();

    await().atMost(Duration.ofSeconds(30)).until(() -> written.get() >= EVENTS / 3);
    relays.get(1).kill(); // SIGKILL mid-stream
    await().atMost(Duration.ofSeconds(30)).until(() -> written.get() >= EVENTS / 2);
    relays.add(RelayProcess.start("relay-4", db.jdbcUrl(), kafka, prefix));
    writer.join(Duration.ofSeconds(60).toMillis());
    assertThat(written.get()).isEqualTo(EVENTS);

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> ops.status().pending() == 0 && ops.status().quarantined() == 0);
    // The joining relay's JVM may still be starting when the survivors have drained everything
    // (a loaded CI machine): wait for it to register rather than assume it already has.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(ops.status().instances())
                    .extracting(OutboxStatus.Instance::relayId)
                    .contains("relay-1", "relay-3", "relay-4"));

    Map<String, List<Long>> arrivals = consume(kafka, topic);
    int duplicates = 0;
    for (int a = 0; a < AGGREGATES; a++) {
      List<Long> versions = arrivals.getOrDefault("acc-" + a, List.of());
      long max = 0;
      Set<Long> distinct = new HashSet<>();
      for (long v : versions) {
        assertThat(v)
            .as("acc-%d: version %d arrived after %d (a gap)", a, v, max)
            .isLessThanOrEqualTo(max + 1);
        max = Math.max(max, v);
        if (!distinct.add(v)) {
          duplicates++;
        }
      }
      assertThat(distinct).as("acc-%d lost versions", a).hasSize(EVENTS / AGGREGATES);
    }
    System.out.println("cluster test: duplicates delivered after the SIGKILL: " + duplicates);

    for (RelayProcess r : List.of(relays.get(0), relays.get(2), relays.get(3))) {
      r.terminate();
    }
    for (RelayProcess r : List.of(relays.get(0), relays.get(2), relays.get(3))) {
      assertThat(r.process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS))
          .as("relay %s stops on SIGTERM: %s", r.relayId, r.output())
          .isTrue();
    }
    OutboxStatus after = ops.status();
    assertThat(after.instances())
        .extracting(OutboxStatus.Instance::relayId)
        .doesNotContain("relay-1", "relay-3", "relay-4");
    assertThat(after.partitions())
        .filteredOn(p -> p.owner() != null && !p.owner().equals("relay-2"))
        .as("graceful stops give their partitions back")
        .isEmpty();
  }

  private static Map<String, List<Long>> consume(String kafka, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "checker-" + UUID.randomUUID());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    Map<String, List<Long>> arrivals = new HashMap<>();
    Set<String> ids = new HashSet<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(300))) {
                  long version =
                      Long.parseLong(
                          new String(
                              r.headers().lastHeader("ce_sequence").value(),
                              StandardCharsets.UTF_8));
                  arrivals.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(version);
                  ids.add(
                      new String(r.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8));
                }
                return ids.size() >= EVENTS;
              });
    }
    return arrivals;
  }
}
