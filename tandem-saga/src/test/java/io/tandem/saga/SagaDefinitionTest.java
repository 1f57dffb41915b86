package io.tandem.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SagaDefinitionTest {
  record Data(String id) {}

  @Test
  void aCheckoutReadsTopToBottom() {
    SagaDefinition<Data> d =
        SagaDefinition.builder("checkout", Data.class)
            .compensatable("create-order", "order", "CreatePendingOrder", "CancelOrder")
            .compensatable("authorize-payment", "payment", "AuthorizePayment", "RefundPayment")
            .pivot("reserve-inventory", "inventory", "ReserveInventory")
            .retriable("request-shipping", "shipping", "RequestShipping")
            .build();

    assertThat(d.steps())
        .extracting(SagaDefinition.Step::kind)
        .containsExactly(
            StepKind.COMPENSATABLE, StepKind.COMPENSATABLE, StepKind.PIVOT, StepKind.RETRIABLE);
    assertThat(d.pivotIndex()).isEqualTo(2);
  }

  @Test
  void aCompensatableStepAfterThePivotIsRefused() {
    assertThatThrownBy(
            () ->
                SagaDefinition.builder("bad", Data.class)
                    .pivot("p", "a", "P")
                    .compensatable("c", "b", "C", "UndoC")
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("step 'c'")
        .hasMessageContaining("cannot follow the pivot");
  }

  @Test
  void otherBrokenRulesAreNamed() {
    assertThatThrownBy(() -> SagaDefinition.builder("s", Data.class).build())
        .hasMessageContaining("has no step");
    assertThatThrownBy(
            () ->
                SagaDefinition.builder("s", Data.class)
                    .pivot("p1", "a", "A")
                    .pivot("p2", "b", "B")
                    .build())
        .hasMessageContaining("at most one pivot");
    assertThatThrownBy(
            () ->
                SagaDefinition.builder("s", Data.class)
                    .retriable("r", "a", "A")
                    .pivot("p", "b", "B")
                    .build())
        .hasMessageContaining("before retriable steps");
    assertThatThrownBy(
            () ->
                SagaDefinition.builder("s", Data.class)
                    .compensatable("x", "a", "A", "UndoA")
                    .compensatable("x", "b", "B", "UndoB")
                    .build())
        .hasMessageContaining("unique");
    assertThatThrownBy(
            () -> SagaDefinition.builder("s", Data.class).compensatable("x", "a", "A", " ").build())
        .hasMessageContaining("needs its compensation");
    assertThatThrownBy(
            () -> SagaDefinition.builder("bad type!", Data.class).pivot("p", "a", "A").build())
        .hasMessageContaining("saga type 'bad type!' is invalid");
  }

  @Test
  void statusTransitionsFollowOneTable() {
    assertThat(SagaStatus.RUNNING.canBecome(SagaStatus.COMPENSATING)).isTrue();
    assertThat(SagaStatus.COMPENSATING.canBecome(SagaStatus.STUCK)).isTrue();
    assertThat(SagaStatus.STUCK.canBecome(SagaStatus.COMPENSATING)).isTrue();
    assertThat(SagaStatus.COMPLETED.canBecome(SagaStatus.COMPENSATING)).isFalse();
    assertThat(SagaStatus.COMPENSATED.canBecome(SagaStatus.RUNNING)).isFalse();
    assertThat(SagaStatus.RUNNING.canBecome(SagaStatus.COMPENSATED))
        .as("a failure before any compensatable step completed")
        .isTrue();
    assertThat(SagaStatus.STUCK.canBecome(SagaStatus.COMPLETED)).isFalse();
  }
}
