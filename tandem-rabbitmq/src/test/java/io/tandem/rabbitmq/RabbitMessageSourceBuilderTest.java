package io.tandem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RabbitMessageSourceBuilderTest {
  private static RabbitMessageSource.Builder valid() {
    return RabbitMessageSource.builder()
        .uri("amqp://guest:guest@localhost:5672/")
        .queue("billing.orders");
  }

  @Test
  void buildsWithoutConnecting() {
    try (RabbitMessageSource source =
        valid().uri("amqp://u:p@no-such-host.invalid:5672/x").build()) {
      assertThat(source.transport()).isEqualTo("rabbitmq");
      assertThat(source.queue()).isEqualTo("billing.orders");
      assertThat(source.isRunning()).isFalse();
      assertThat(source.describe())
          .isEqualTo(
              "queue billing.orders on amqp://u:***@no-such-host.invalid:5672/x (prefetch 256)");
    }
  }

  @Test
  void refusesAMissingOrMalformedUriWithoutShowingThePassword() {
    assertThatThrownBy(() -> RabbitMessageSource.builder().queue("q").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri must not be blank");
    assertThatThrownBy(() -> valid().uri("http://tandem:s3cret@localhost:5672/").build())
        .hasMessageContaining("uri 'http://tandem:***@localhost:5672/' is not an AMQP URI")
        .hasMessageNotContaining("s3cret");
  }

  @Test
  void refusesAMissingOrIllegalQueue() {
    assertThatThrownBy(() -> valid().queue(null).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queue must not be blank, was 'null'");
    assertThatThrownBy(() -> valid().queue("q".repeat(256)).build())
        .hasMessageContaining("queue 'qqq")
        .hasMessageContaining("is 256 bytes of UTF-8; AMQP allows at most 255");
    assertThatThrownBy(() -> valid().queue("a\nb").build())
        .hasMessageContaining("queue 'a?b' has control characters");
    assertThatThrownBy(() -> valid().queue("amq.mine").declareQueue(true).build())
        .hasMessageContaining("queue 'amq.mine' cannot be declared");
    assertThat(valid().queue("amq.mine").build().queue()).isEqualTo("amq.mine");
  }

  @Test
  void refusesAPrefetchOutsideWhatBasicQosCarries() {
    assertThatThrownBy(() -> valid().prefetch(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prefetch must be between 1 and 65535, was 0");
    assertThatThrownBy(() -> valid().prefetch(65_536).build())
        .hasMessageContaining("prefetch must be between 1 and 65535, was 65536");
    assertThat(valid().prefetch(65_535).build().describe()).endsWith("(prefetch 65535)");
  }

  @Test
  void bindingsAndQueueArgumentsNeedTheSourceToDeclareTheQueue() {
    assertThatThrownBy(() -> valid().bind("tandem.order").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bind and queueArgument need declareQueue(true)");
    assertThatThrownBy(() -> valid().queueArgument("x-queue-type", "quorum").build())
        .hasMessageContaining("bind and queueArgument need declareQueue(true)");
    assertThat(
            valid()
                .declareQueue(true)
                .bind("tandem.order")
                .bindAggregateType("Stock Item")
                .queueArgument("x-queue-type", "quorum")
                .build())
        .isNotNull();
  }

  @Test
  void refusesIllegalBindingsAndArguments() {
    assertThatThrownBy(() -> valid().declareQueue(true).bind("").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exchange must not be empty");
    assertThatThrownBy(() -> valid().declareQueue(true).bind("x", null).build())
        .hasMessageContaining("bindingKey must not be null");
    assertThatThrownBy(() -> valid().declareQueue(true).bind("x", "k".repeat(300)).build())
        .hasMessageContaining("bindingKey 'kkk");
    assertThatThrownBy(() -> valid().bindAggregateType(" "))
        .hasMessageContaining("aggregateType must not be blank");
    assertThatThrownBy(() -> valid().queueArgument("x-single-active-consumer", true))
        .hasMessageContaining("use singleActiveConsumer(boolean) instead");
    assertThatThrownBy(() -> valid().queueArgument("x-max-length", null))
        .hasMessageContaining("queueArgument needs a name and a value");
  }

  @Test
  void declareNeedsDeclareQueue() {
    assertThatThrownBy(() -> valid().build().declare())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("build with declareQueue(true)");
  }

  @Test
  void refusesTimeoutsOutOfRange() {
    assertThatThrownBy(() -> valid().connectTimeout(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connectTimeout must be a positive duration")
        .hasMessageContaining("was PT0S");
    assertThatThrownBy(() -> valid().closeTimeout(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("closeTimeout must be zero or positive, was PT-1S");
    assertThatThrownBy(() -> valid().reconnectDelay(null).build())
        .hasMessageContaining("reconnectDelay must be a positive duration");
    assertThatThrownBy(() -> valid().lagInterval(Duration.ZERO).build())
        .hasMessageContaining("lagInterval must be a positive duration, e.g. PT5S, was PT0S");
    assertThatThrownBy(() -> valid().connectionName(" ").build())
        .hasMessageContaining("connectionName must not be blank, was ' '");
  }

  @Test
  void startNeedsASinkAndHappensOnce() {
    RabbitMessageSource source = valid().build();
    assertThatThrownBy(() -> source.start(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("sink must not be null");
    source.close();
    assertThatThrownBy(() -> source.start(m -> true))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is closed");
  }
}
