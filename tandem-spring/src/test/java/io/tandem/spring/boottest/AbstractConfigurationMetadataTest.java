package io.tandem.spring.boottest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.spring.TandemProperties;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;

/**
 * The IDE metadata the configuration processor wrote: every tandem.* property, each described. Both
 * starters run it ({@code ConfigurationMetadataTest extends AbstractConfigurationMetadataTest}),
 * each against the metadata on its own test classpath.
 */
public abstract class AbstractConfigurationMetadataTest {
  @Test
  public void everyPropertyIsListedWithTypeDefaultAndDescription() throws Exception {
    Map<String, JsonNode> properties = new TreeMap<>();
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      for (JsonNode p : new ObjectMapper().readTree(in).get("properties")) {
        properties.put(p.get("name").asText(), p);
      }
    }
    assertThat(properties.keySet())
        .containsExactlyInAnyOrder(
            "tandem.migrate",
            "tandem.relay.enabled",
            "tandem.relay.relay-id",
            "tandem.relay.batch-size",
            "tandem.relay.lease-duration",
            "tandem.relay.heartbeat-interval",
            "tandem.relay.publish-timeout",
            "tandem.relay.poll-interval",
            "tandem.kafka.bootstrap-servers",
            "tandem.kafka.source",
            "tandem.kafka.topic-prefix",
            "tandem.health.max-oldest-pending-age",
            "tandem.health.consumers",
            "tandem.health.max-gap-age",
            "tandem.metrics.refresh-interval",
            "tandem.transport",
            "tandem.source",
            "tandem.rabbitmq.uri",
            "tandem.rabbitmq.declare-topology",
            "tandem.rabbitmq.queue-prefix",
            "tandem.nats.url",
            "tandem.nats.stream",
            "tandem.nats.create-stream",
            "tandem.redis.uri",
            "tandem.consumer.enabled",
            "tandem.consumer.concurrency",
            "tandem.consumer.ordered",
            "tandem.consumer.max-attempts",
            "tandem.consumer.retry-base",
            "tandem.consumer.retry-cap",
            "tandem.consumer.unknown-event-types",
            "tandem.saga.enabled",
            "tandem.saga.name",
            "tandem.saga.reply-to",
            "tandem.saga.timer-interval",
            "tandem.saga.metrics-refresh-interval");
    assertThat(properties.values())
        .allSatisfy(
            p -> {
              assertThat(p.path("type").asText()).as(p.toString()).isNotEmpty();
              assertThat(p.path("description").asText()).as(p.toString()).isNotBlank();
            });
    // The documented defaults are the bound ones (the metadata lists them by hand).
    TandemProperties defaults = new TandemProperties();
    assertThat(properties.get("tandem.relay.batch-size").path("defaultValue").asInt())
        .isEqualTo(defaults.getRelay().getBatchSize());
    assertThat(duration(properties, "tandem.relay.lease-duration"))
        .isEqualTo(defaults.getRelay().getLeaseDuration());
    assertThat(duration(properties, "tandem.relay.heartbeat-interval"))
        .isEqualTo(defaults.getRelay().getHeartbeatInterval());
    assertThat(duration(properties, "tandem.relay.publish-timeout"))
        .isEqualTo(defaults.getRelay().getPublishTimeout());
    assertThat(duration(properties, "tandem.relay.poll-interval"))
        .isEqualTo(defaults.getRelay().getPollInterval());
    assertThat(duration(properties, "tandem.health.max-oldest-pending-age"))
        .isEqualTo(defaults.getHealth().getMaxOldestPendingAge());
    assertThat(duration(properties, "tandem.health.max-gap-age"))
        .isEqualTo(defaults.getHealth().getMaxGapAge());
    assertThat(duration(properties, "tandem.metrics.refresh-interval"))
        .isEqualTo(defaults.getMetrics().getRefreshInterval());
    assertThat(properties.get("tandem.kafka.topic-prefix").path("defaultValue").asText())
        .isEqualTo(defaults.getKafka().getTopicPrefix());
  }

  private static Duration duration(Map<String, JsonNode> properties, String name) {
    return DurationStyle.detectAndParse(properties.get(name).path("defaultValue").asText());
  }
}
