package io.tandem.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.testkit.internal.SaslUser;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The embedded broker's SASL listener: each mechanism (PLAIN from the listener's JAAS line, SCRAM
 * from the credentials written at format time) logs in with the user's password and is refused with
 * another; {@link KafkaBroker#external(String, Map)} reaches the listener with the settings, and a
 * refused login fails at once instead of being retried for 30 s.
 */
class KafkaBrokerSaslTest {
  private static KafkaBroker broker;

  @BeforeAll
  static void start() {
    broker = KafkaBroker.embedded().defaultPartitions(1).saslListener().start();
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"})
  void eachMechanismLogsInAndCarriesRecords(String mechanism) throws Exception {
    Map<String, String> sasl = broker.saslClientProperties(mechanism);
    String topic = "sasl-" + mechanism.toLowerCase();
    KafkaBroker external = KafkaBroker.external(broker.saslBootstrapServers(), sasl);
    assertThat(external.clientProperties()).isEqualTo(sasl);
    external.createTopic(topic, 1);

    Map<String, Object> producer = new HashMap<>(sasl);
    producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.saslBootstrapServers());
    producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    try (KafkaProducer<String, String> p = new KafkaProducer<>(producer)) {
      p.send(new ProducerRecord<>(topic, "k", mechanism)).get(30, TimeUnit.SECONDS);
    }
    Map<String, Object> consumer = new HashMap<>(sasl);
    consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.saslBootstrapServers());
    consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "g-" + topic);
    consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumer)) {
      c.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      String read = null;
      while (read == null && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          read = r.value();
        }
      }
      assertThat(read).isEqualTo(mechanism);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"})
  void aWrongPasswordIsRefused(String mechanism) {
    Map<String, Object> admin =
        new HashMap<>(SaslUser.clientProperties(mechanism, broker.saslUser(), "wrong-password"));
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.saslBootstrapServers());
    try (Admin a = Admin.create(admin)) {
      assertThatThrownBy(() -> a.describeCluster().clusterId().get(20, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(SaslAuthenticationException.class);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"PLAIN", "SCRAM-SHA-512"})
  void anExternalHandleWithAWrongPasswordFailsAtOnceWithoutThePassword(String mechanism) {
    String wrong = "not-" + broker.saslPassword();
    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                KafkaBroker.external(
                    broker.saslBootstrapServers(),
                    SaslUser.clientProperties(mechanism, broker.saslUser(), wrong)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("refused the client")
        .hasMessageContaining("SaslAuthenticationException")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(wrong));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
  }

  @org.junit.jupiter.api.Test
  void thePlaintextListenerStaysAndThePasswordIsNotInToString() {
    assertThat(broker.clientProperties()).isEmpty();
    assertThat(broker.saslBootstrapServers()).isNotEqualTo(broker.bootstrapServers());
    assertThat(broker.toString()).doesNotContain(broker.saslPassword());
    assertThat(new SaslUser("u", "pw-123").toString()).doesNotContain("pw-123");
    try (KafkaBroker plain = KafkaBroker.embedded().defaultPartitions(1).start()) {
      assertThatThrownBy(plain::saslBootstrapServers)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("saslListener()");
    }
  }
}
