package io.tandem.core.spi;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TransportRepliesTest {
  private final UUID a = UUID.randomUUID();
  private final UUID b = UUID.randomUUID();

  @Test
  void oneOutcomePerEventInOrderPasses() {
    assertThatCode(
            () ->
                TransportReplies.check(
                    "kafka",
                    List.of(a, b),
                    List.of(PublishOutcome.acknowledged(a), PublishOutcome.acknowledged(b))))
        .doesNotThrowAnyException();
  }

  @Test
  void aMissingOutcomeIsRefused() {
    assertThatThrownBy(
            () ->
                TransportReplies.check(
                    "kafka", List.of(a, b), List.of(PublishOutcome.acknowledged(a))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("transport kafka returned 1 outcomes for 2 events");
  }

  @Test
  void outcomesOutOfOrderAreRefused() {
    assertThatThrownBy(
            () ->
                TransportReplies.check(
                    "kafka",
                    List.of(a, b),
                    List.of(PublishOutcome.acknowledged(b), PublishOutcome.acknowledged(a))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("transport kafka returned outcomes out of order at index 0");
  }
}
