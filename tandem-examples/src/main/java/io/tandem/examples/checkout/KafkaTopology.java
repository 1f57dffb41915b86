package io.tandem.examples.checkout;

import io.tandem.kafka.TopicRouter;
import java.util.List;
import java.util.Map;

/**
 * Where the checkout system's messages go: one Kafka cluster and a topic prefix per run, so that
 * runs sharing a cluster never see each other's commands. The topic of an aggregate type is {@code
 * prefix + type} (as {@link TopicRouter#byAggregateType(String)} computes it); a consumer group is
 * {@code prefix + consumer}.
 *
 * @param bootstrapServers the cluster
 * @param prefix for example {@code tandem.checkout-k3x9.}: letters, digits, '.', '_', '-'
 * @param clientProperties client settings (TLS, SASL) every client of the system gets beside the
 *     bootstrap servers; none for a plaintext cluster. Never printed.
 */
public record KafkaTopology(
    String bootstrapServers, String prefix, Map<String, String> clientProperties) {

  /** A topology of a plaintext cluster: no client settings. */
  public KafkaTopology(String bootstrapServers, String prefix) {
    this(bootstrapServers, prefix, Map.of());
  }

  public KafkaTopology {
    clientProperties = clientProperties == null ? Map.of() : Map.copyOf(clientProperties);
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new IllegalArgumentException("bootstrapServers must not be blank");
    }
    if (prefix == null || !prefix.matches("[a-z0-9._-]{1,100}")) {
      throw new IllegalArgumentException(
          "prefix '" + prefix + "' is invalid: use 1 to 100 of a-z, 0-9, '.', '_', '-'");
    }
  }

  @Override
  public String toString() {
    return "KafkaTopology[" + bootstrapServers + ", " + prefix + "]"; // never a setting's value
  }

  /** The topic of an aggregate type (a participant's commands, the orchestrator's replies). */
  public String topic(String aggregateType) {
    return prefix + aggregateType;
  }

  /** The consumer group of a consumer. */
  public String group(String consumer) {
    return prefix + consumer;
  }

  /** The router the relays use. */
  public TopicRouter router() {
    return TopicRouter.byAggregateType(prefix);
  }

  /** Every topic of the checkout saga. */
  public List<String> topics() {
    return List.of(
        topic(CheckoutSaga.ORDER),
        topic(CheckoutSaga.PAYMENT),
        topic(CheckoutSaga.INVENTORY),
        topic(CheckoutSaga.SHIPPING),
        topic(CheckoutSaga.REPLIES));
  }
}
