package io.tandem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RabbitTransportBuilderTest {
  private static RabbitTransport.Builder valid() {
    return RabbitTransport.builder().uri("amqp://guest:guest@localhost:5672/").source("/s");
  }

  @Test
  void buildsWithoutConnecting() {
    try (RabbitTransport rabbit = valid().uri("amqp://u:p@no-such-host.invalid:5672/x").build()) {
      assertThat(rabbit.name()).isEqualTo("rabbitmq");
    }
  }

  @Test
  void refusesAMissingOrMalformedUriWithoutShowingThePassword() {
    assertThatThrownBy(() -> RabbitTransport.builder().source("/s").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri must not be blank");
    assertThatThrownBy(() -> valid().uri("http://tandem:s3cret@localhost:5672/").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri 'http://tandem:***@localhost:5672/' is not an AMQP URI")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> valid().uri("amqp://tandem:s3cret@local host/").build())
        .hasMessageContaining("is not an AMQP URI")
        .hasMessageNotContaining("s3cret");
  }

  @Test
  void refusesAMissingSourceOrRouterOrName() {
    assertThatThrownBy(() -> valid().source(null).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("source must not be blank");
    assertThatThrownBy(() -> valid().source("not a uri").build())
        .hasMessageContaining("source 'not a uri' is not a URI reference");
    assertThatThrownBy(() -> valid().exchangeRouter(null).build())
        .hasMessageContaining("exchangeRouter must not be null");
    assertThatThrownBy(() -> valid().connectionName(" ").build())
        .hasMessageContaining("connectionName must not be blank, was ' '");
  }

  @Test
  void refusesTimeoutsOutOfRange() {
    assertThatThrownBy(() -> valid().connectTimeout(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connectTimeout must be a positive duration")
        .hasMessageContaining("was PT0S");
    assertThatThrownBy(() -> valid().connectTimeout(null).build())
        .hasMessageContaining("connectTimeout must be a positive duration");
    assertThatThrownBy(() -> valid().closeTimeout(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("closeTimeout must be zero or positive, was PT-1S");
  }
}
