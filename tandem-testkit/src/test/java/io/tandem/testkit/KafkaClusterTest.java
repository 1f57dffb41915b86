package io.tandem.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A 3-node cluster: acknowledged writes survive the loss of their partition's leader. Slow. */
@Tag("slow")
class KafkaClusterTest {

  @Test
  void recordsAcknowledgedWithAcksAllSurviveTheLeadersSigkillAndItsRestart() throws Exception {
    try (KafkaCluster cluster = KafkaCluster.start(3)) {
      KafkaBroker kafka = cluster.broker();
      kafka.createTopic("failover", 1);
      assertThat(cluster.inSyncReplicas("failover", 0)).hasSize(3);

      Properties p = new Properties();
      p.putAll(
          Map.of(
              "bootstrap.servers", cluster.bootstrapServers(),
              "acks", "all",
              "enable.idempotence", "true",
              "delivery.timeout.ms", "60000"));
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
        for (int i = 0; i < 100; i++) {
          producer.send(new ProducerRecord<>("failover", "k", "before-" + i)).get();
        }
        int leader = cluster.leaderOf("failover", 0);
        cluster.kill(leader);
        for (int i = 0; i < 100; i++) {
          producer.send(new ProducerRecord<>("failover", "k", "after-" + i)).get();
        }
        assertThat(cluster.leaderOf("failover", 0)).isNotEqualTo(leader);
        cluster.restart(leader);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (cluster.inSyncReplicas("failover", 0).size() < 3 && System.nanoTime() < deadline) {
          TimeUnit.MILLISECONDS.sleep(200);
        }
        assertThat(cluster.inSyncReplicas("failover", 0)).contains(leader);
      }

      Properties c = new Properties();
      c.putAll(
          Map.of(
              "bootstrap.servers", cluster.bootstrapServers(),
              "group.id", "check",
              "auto.offset.reset", "earliest"));
      Set<String> seen = new HashSet<>();
      List<String> order = new ArrayList<>();
      try (KafkaConsumer<String, String> consumer =
          new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
        consumer.subscribe(List.of("failover"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (seen.size() < 200 && System.nanoTime() < deadline) {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
            seen.add(r.value());
            order.add(r.value());
          }
        }
      }
      assertThat(seen).hasSize(200);
      assertThat(order.get(0)).isEqualTo("before-0");
      assertThat(order.get(199)).isEqualTo("after-99");
    }
  }
}
