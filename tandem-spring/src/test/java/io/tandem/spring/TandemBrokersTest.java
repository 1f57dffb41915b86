package io.tandem.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.Transport;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.nats.JetStreamMessageSource;
import io.tandem.nats.JetStreamTransport;
import io.tandem.rabbitmq.RabbitMessageSource;
import io.tandem.rabbitmq.RabbitTransport;
import io.tandem.redis.RedisStreamsMessageSource;
import io.tandem.redis.RedisStreamsTransport;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Wiring of {@code tandem.transport}: each value gives that module's transport and source with the
 * configured address and the consumer's routing; a missing address or an unknown name fails naming
 * the property. (Nothing connects here; the starters' tests run Redis end to end.)
 */
class TandemBrokersTest {

  static TandemProperties properties(String transport) {
    TandemProperties p = new TandemProperties();
    p.setTransport(transport);
    return p;
  }

  @Test
  void noTransportAndNoKafkaAddressMeansNoBroker() {
    assertThat(TandemBrokers.of(new TandemProperties(), "app")).isNull();
  }

  @Test
  void kafkaIsTheDefaultWhenItsAddressIsSet() throws Exception {
    TandemProperties p = new TandemProperties();
    p.getKafka().setBootstrapServers("127.0.0.1:1");
    p.getKafka().setTopicPrefix("shop.");
    TandemBroker broker = TandemBrokers.of(p, "app");
    assertThat(broker.name()).isEqualTo("kafka");
    try (Transport t = broker.transport();
        MessageSource s = broker.source("billing", List.of("Order"))) {
      assertThat(t).isInstanceOf(KafkaTransport.class);
      assertThat(s).isInstanceOf(KafkaMessageSource.class);
      assertThat(s.describe()).contains("shop.order").contains("billing");
    }
  }

  @Test
  void rabbitmqNatsAndRedisAreChosenByName() throws Exception {
    TandemProperties rabbit = properties("rabbitmq");
    rabbit.getRabbitmq().setUri("amqp://guest:guest@127.0.0.1:5672");
    TandemProperties nats = properties("NATS");
    nats.getNats().setUrl("nats://127.0.0.1:4222");
    TandemProperties redis = properties("redis");
    redis.getRedis().setUri("redis://127.0.0.1:6379");
    check(rabbit, "rabbitmq", RabbitTransport.class, RabbitMessageSource.class, "tandem.billing");
    check(nats, "nats", JetStreamTransport.class, JetStreamMessageSource.class, "billing");
    check(
        redis,
        "redis",
        RedisStreamsTransport.class,
        RedisStreamsMessageSource.class,
        "tandem:order");
  }

  private static void check(
      TandemProperties p, String name, Class<?> transport, Class<?> source, String described)
      throws Exception {
    TandemBroker broker = TandemBrokers.of(p, "app");
    assertThat(broker.name()).isEqualTo(name);
    try (Transport t = broker.transport();
        MessageSource s = broker.source("billing", List.of("Order"))) {
      assertThat(t).isInstanceOf(transport);
      assertThat(s).isInstanceOf(source);
      assertThat(s.describe()).contains(described);
    }
  }

  @Test
  void aChosenTransportWithoutItsAddressOrAnUnknownNameFailsNamingTheProperty() {
    assertThatThrownBy(() -> TandemBrokers.of(properties("rabbitmq"), "app"))
        .hasMessageContaining("tandem.rabbitmq.uri");
    assertThatThrownBy(() -> TandemBrokers.of(properties("nats"), "app"))
        .hasMessageContaining("tandem.nats.url");
    assertThatThrownBy(() -> TandemBrokers.of(properties("redis"), "app"))
        .hasMessageContaining("tandem.redis.uri");
    assertThatThrownBy(() -> TandemBrokers.of(properties("kafka"), "app"))
        .hasMessageContaining("tandem.kafka.bootstrap-servers");
    assertThatThrownBy(() -> TandemBrokers.of(properties("pulsar"), "app"))
        .hasMessageContaining("tandem.transport must be one of kafka, rabbitmq, nats, redis")
        .hasMessageContaining("pulsar");
  }
}
