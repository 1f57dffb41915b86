package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The one wording of an event's publish failure that every transport uses. */
class PublishExceptionTest {
  private static final UUID ID = UUID.fromString("01900000-0000-7000-8000-000000000001");

  @Test
  void anEventsFailureNamesTheTransportClassEventDestinationAndReason() {
    IllegalStateException cause = new IllegalStateException("boom");
    PublishException e =
        PublishException.forEvent(
            "kafka", ErrorClass.TIMEOUT, ID, "topic orders", "no ack within PT5S", cause);

    assertThat(e)
        .hasMessage("kafka: TIMEOUT: event " + ID + " to topic orders: no ack within PT5S")
        .hasCause(cause);
    assertThat(e.errorClass()).isEqualTo(ErrorClass.TIMEOUT);
  }

  @Test
  void withoutADestinationTheMessageSaysNoWhere() {
    assertThat(
            PublishException.forEvent(
                "nats", ErrorClass.UNROUTABLE, ID, null, "no subject: blank", null))
        .hasMessage("nats: UNROUTABLE: event " + ID + ": no subject: blank")
        .hasNoCause();
  }
}
