package io.tandem.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Per-client filtering of shared Kafka client settings, and their hand-over to a child. */
class KafkaClientPropertiesTest {
  private static final Map<String, String> SETTINGS =
      Map.of(
          "security.protocol", "SASL_SSL",
          "sasl.jaas.config", "x required username=\"a\" password=\"p=w\\n\";",
          "linger.ms", "5",
          "max.poll.records", "200",
          "not.a.kafka.setting", "1");

  @Test
  void eachKindOfClientTakesOnlyTheSettingsItKnows() {
    assertThat(KafkaClientProperties.producer(SETTINGS))
        .containsOnlyKeys("security.protocol", "sasl.jaas.config", "linger.ms");
    assertThat(KafkaClientProperties.consumer(SETTINGS))
        .containsOnlyKeys("security.protocol", "sasl.jaas.config", "max.poll.records");
    assertThat(KafkaClientProperties.admin(SETTINGS))
        .containsOnlyKeys("security.protocol", "sasl.jaas.config");
  }

  @Test
  void theProgramsOwnConfigurationWinsOverTheSharedSettings() {
    Map<String, Object> config =
        KafkaClientProperties.consumer(
            SETTINGS, Map.of("max.poll.records", 10, "bootstrap.servers", "k:1"));
    assertThat(config)
        .containsEntry("max.poll.records", 10)
        .containsEntry("bootstrap.servers", "k:1")
        .containsEntry("security.protocol", "SASL_SSL");
  }

  @Test
  void encodedSettingsDecodeToTheSameMapWhateverTheirCharacters() {
    Map<String, String> tricky = new LinkedHashMap<>(SETTINGS);
    tricky.put("ssl.key.password", "a=b:c#d!e \\ f\né");
    assertThat(KafkaClientProperties.decode(KafkaClientProperties.encode(tricky)))
        .isEqualTo(tricky);
    assertThat(KafkaClientProperties.decode(KafkaClientProperties.encode(Map.of()))).isEmpty();
  }

  @Test
  void aMalformedHandOverSaysWhichVariableAndNotTheValue() {
    assertThatThrownBy(() -> KafkaClientProperties.decode("sasl.jaas.config=secret\\u12"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(KafkaClientProperties.ENVIRONMENT_VARIABLE)
        .hasMessageNotContaining("secret");
  }

  @Test
  void theBuildersTakeTheirOwnKindsSettings() {
    // A consumer setting given to a producer would only be warned about; it is left out instead,
    // and a producer setting the guarantee forbids is still refused by name.
    KafkaTransport.builder().clientProperties(SETTINGS);
    KafkaMessageSource.builder().clientProperties(SETTINGS);
    assertThatThrownBy(
            () ->
                KafkaTransport.builder()
                    .bootstrapServers("127.0.0.1:1")
                    .source("/test")
                    .topicRouter(TopicRouter.fixed("t"))
                    .clientProperties(Map.of("acks", "1"))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("acks");
  }
}
