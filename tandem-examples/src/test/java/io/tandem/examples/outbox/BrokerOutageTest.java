package io.tandem.examples.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.core.Event;
import io.tandem.core.RetryPolicy;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.TestInfrastructure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The broker is stopped under load and started again: business transactions keep committing, the
 * relay keeps retrying, and when the broker is back the backlog drains with nothing lost.
 */
@Tag("slow")
class BrokerOutageTest {

  @Test
  void nothingIsLostWhenTheBrokerStopsUnderLoadAndComesBack() throws Exception {
    try (KafkaBroker broker = KafkaBroker.embedded().start();
        IsolatedDatabase db = TestInfrastructure.postgres().createDatabase("broker_outage")) {
      Migrations.migrate(db.dataSource());
      String topic = "outage-" + UUID.randomUUID().toString().substring(0, 8);
      broker.createTopic(topic, 3);
      try (KafkaTransport transport =
          KafkaTransport.builder()
              .bootstrapServers(broker.bootstrapServers())
              .source("/tests/outage")
              .topicRouter(TopicRouter.fixed(topic))
              .producerProperty("max.block.ms", "1000")
              .producerProperty("request.timeout.ms", "1000")
              .producerProperty("delivery.timeout.ms", "1500")
              .build()) {
        OutboxRelay relay =
            OutboxRelay.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .relayId("outage-relay")
                .batchSize(100)
                .publishTimeout(Duration.ofSeconds(2))
                .heartbeatInterval(Duration.ofMillis(500))
                .leaseDuration(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(100))
                .retryPolicy(
                    RetryPolicy.builder()
                        .base(Duration.ofMillis(100))
                        .cap(Duration.ofSeconds(1))
                        .maxAttempts(10_000)
                        .build())
                .build();
        relay.start();
        // The writer uses a pool, as a service would: a connection per transaction costs tens of
        // milliseconds on a small machine and made the 1,500 writes outlast the test's waits.
        HikariConfig poolConfig = new HikariConfig();
        poolConfig.setDataSource(db.dataSource());
        poolConfig.setMaximumPoolSize(2);
        HikariDataSource writerPool = new HikariDataSource(poolConfig);
        AtomicInteger written = new AtomicInteger();
        List<UUID> ids = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread writer =
            new Thread(
                () -> {
                  Outbox outbox = Outbox.create();
                  for (int i = 0; i < 1_500; i++) {
                    Event e =
                        Event.builder()
                            .aggregate("Account", "acc-" + (i % 50), i / 50 + 1)
                            .eventType("Deposited")
                            .payload("{\"n\":" + i + "}")
                            .build();
                    Transactions.inTransaction(
                        writerPool,
                        c -> {
                          outbox.append(c, e);
                          return null;
                        });
                    ids.add(e.eventId());
                    written.incrementAndGet();
                    try {
                      Thread.sleep(4); // pacing the writer across the outage
                    } catch (InterruptedException ex) {
                      Thread.currentThread().interrupt();
                      return;
                    }
                  }
                },
                "outage-writer");
        writer.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> written.get() >= 300);
        broker.stop();
        int atStop = written.get();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> written.get() >= atStop + 300 && relay.failedCount() > 0);
        long pendingDuringOutage = OutboxOperations.create(db.dataSource()).status().pending();
        assertThat(pendingDuringOutage).as("commits continue during the outage").isPositive();
        broker.restart();
        writer.join(60_000);
        writerPool.close();
        assertThat(written.get()).isEqualTo(1_500);
        OutboxOperations ops = OutboxOperations.create(db.dataSource());
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> ops.status().pending() == 0 && ops.status().quarantined() == 0);
        relay.close();

        Set<String> received = new HashSet<>();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "outage-check");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, byte[]> consumer =
            new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
          consumer.subscribe(List.of(topic));
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () -> {
                    for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                      received.add(
                          new String(
                              r.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8));
                    }
                    return received.size() >= ids.size();
                  });
        }
        assertThat(received)
            .containsExactlyInAnyOrderElementsOf(ids.stream().map(UUID::toString).toList());
      }
    }
  }
}
