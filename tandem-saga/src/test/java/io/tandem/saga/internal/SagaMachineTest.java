package io.tandem.saga.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaStatus;
import io.tandem.saga.internal.Transition.Send;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The state machine alone: (definition, row, reply or timer) to (next row, commands). */
class SagaMachineTest {
  record Data(String id) {}

  static final Instant T0 = Instant.parse("2026-12-03T08:00:00Z");
  static final Duration STEP = Duration.ofSeconds(30);

  static SagaDefinition<Data> checkout(boolean parallel) {
    return SagaDefinition.builder("checkout", Data.class)
        .compensatable("create-order", "order", "CreatePendingOrder", "CancelOrder")
        .compensatable("authorize-payment", "payment", "AuthorizePayment", "RefundPayment")
        .pivot("reserve-inventory", "inventory", "ReserveInventory")
        .retriable("request-shipping", "shipping", "RequestShipping")
        .stepTimeout(STEP)
        .forwardAttempts(2)
        .compensationAttempts(2)
        .parallelCompensation(parallel)
        .build();
  }

  final SagaDefinition<Data> def = checkout(false);
  final UUID id = UUID.randomUUID();

  SagaRow started() {
    return SagaMachine.start(def, id, "{\"id\":\"o-1\"}", T0).next();
  }

  static SagaInput.Reply ok(String step) {
    return new SagaInput.Reply(step, false, true, "{}");
  }

  static SagaInput.Reply failed(String step, boolean compensation) {
    return new SagaInput.Reply(step, compensation, false, "{\"reason\":\"no\"}");
  }

  @Test
  void aStartSendsTheFirstCommandAndWakesAtTheStepTimeout() {
    Transition t = SagaMachine.start(def, id, "{\"id\":\"o-1\"}", T0);

    assertThat(t.next().status()).isEqualTo(SagaStatus.RUNNING);
    assertThat(t.next().stepIndex()).isZero();
    assertThat(t.next().wakeupAt()).isEqualTo(T0.plus(STEP));
    assertThat(t.sends()).containsExactly(new Send(0, false, 1));
  }

  @Test
  void successRepliesWalkTheStepsMergeTheirFieldsAndComplete() {
    SagaRow row = started();
    Transition t =
        SagaMachine.next(
            def, row, new SagaInput.Reply("create-order", false, true, "{\"orderNo\":7}"), T0);
    assertThat(t.next().stepIndex()).isEqualTo(1);
    assertThat(t.next().data()).contains("\"orderNo\":7").contains("\"id\":\"o-1\"");
    assertThat(t.sends()).containsExactly(new Send(1, false, 1));
    assertThat(t.next().version()).as("the write checks the version read").isEqualTo(row.version());

    row = t.next();
    for (String step : List.of("authorize-payment", "reserve-inventory", "request-shipping")) {
      row = SagaMachine.next(def, row, ok(step), T0).next();
    }
    assertThat(row.status()).isEqualTo(SagaStatus.COMPLETED);
    assertThat(row.wakeupAt()).isNull();
  }

  @Test
  void aFailureBeforeThePivotCompensatesTheCompletedStepsLastFirst() {
    SagaRow row = SagaMachine.next(def, started(), ok("create-order"), T0).next();
    Transition t = SagaMachine.next(def, row, failed("authorize-payment", false), T0);

    assertThat(t.next().status()).isEqualTo(SagaStatus.COMPENSATING);
    assertThat(t.next().stepIndex()).isZero();
    assertThat(t.sends()).containsExactly(new Send(0, true, 1));
    assertThat(t.next().lastError()).contains("authorize-payment").contains("no");

    Transition done =
        SagaMachine.next(def, t.next(), new SagaInput.Reply("create-order", true, true, "{}"), T0);
    assertThat(done.next().status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(done.sends()).isEmpty();
  }

  @Test
  void aParallelCompensationSendsAllAndEndsWhenTheLastAnswers() {
    SagaDefinition<Data> parallel = checkout(true);
    SagaRow row = SagaMachine.start(parallel, id, "{}", T0).next();
    row = SagaMachine.next(parallel, row, ok("create-order"), T0).next();
    row = SagaMachine.next(parallel, row, ok("authorize-payment"), T0).next();
    Transition t = SagaMachine.next(parallel, row, failed("reserve-inventory", false), T0);
    assertThat(t.sends()).containsExactly(new Send(1, true, 1), new Send(0, true, 1));

    SagaRow half =
        SagaMachine.next(
                parallel, t.next(), new SagaInput.Reply("create-order", true, true, "{}"), T0)
            .next();
    assertThat(half.status()).isEqualTo(SagaStatus.COMPENSATING);
    assertThat(half.pending()).containsExactly(1);
    SagaRow all =
        SagaMachine.next(
                parallel, half, new SagaInput.Reply("authorize-payment", true, true, "{}"), T0)
            .next();
    assertThat(all.status()).isEqualTo(SagaStatus.COMPENSATED);
  }

  @Test
  void aTimedOutStepIsSentAgainThenCompensatedItselfIncluded() {
    SagaRow row = started();
    Transition again = SagaMachine.next(def, row, new SagaInput.Timer(true), T0.plus(STEP));
    assertThat(again.sends()).containsExactly(new Send(0, false, 2));
    assertThat(again.next().attempt()).isEqualTo(2);

    Transition giveUp =
        SagaMachine.next(
            def, again.next(), new SagaInput.Timer(true), T0.plus(STEP.multipliedBy(2)));
    assertThat(giveUp.next().status())
        .as("after forwardAttempts (2) the step may have been applied: compensate it")
        .isEqualTo(SagaStatus.COMPENSATING);
    assertThat(giveUp.sends()).containsExactly(new Send(0, true, 1));
  }

  @Test
  void aRetriableStepThatFailsWaitsForItsRetryAndIsSentAgainWithoutTimingOut() {
    SagaRow row = started();
    for (String step : List.of("create-order", "authorize-payment", "reserve-inventory")) {
      row = SagaMachine.next(def, row, ok(step), T0).next();
    }
    Transition failed = SagaMachine.next(def, row, failed("request-shipping", false), T0);
    assertThat(failed.sends()).isEmpty();
    assertThat(failed.next().status()).isEqualTo(SagaStatus.RUNNING);
    assertThat(failed.next().wakeupAt()).isAfterOrEqualTo(T0).isBefore(T0.plus(STEP));

    Transition retry =
        SagaMachine.next(def, failed.next(), new SagaInput.Timer(false), T0.plus(STEP));
    assertThat(retry.sends()).containsExactly(new Send(3, false, 2));
  }

  @Test
  void aSagaPastItsDeadlineBeforeThePivotCompensates() {
    SagaDefinition<Data> timed =
        SagaDefinition.builder("timed", Data.class)
            .compensatable("create-order", "order", "CreatePendingOrder", "CancelOrder")
            .compensatable("authorize-payment", "payment", "AuthorizePayment", "RefundPayment")
            .pivot("reserve-inventory", "inventory", "ReserveInventory")
            .sagaTimeout(Duration.ofSeconds(5))
            .build();
    SagaRow row = SagaMachine.start(timed, id, "{}", T0).next();
    assertThat(row.wakeupAt()).isEqualTo(T0.plusSeconds(5));
    row = SagaMachine.next(timed, row, ok("create-order"), T0).next();

    Transition t = SagaMachine.next(timed, row, new SagaInput.Timer(true), T0.plusSeconds(5));
    assertThat(t.next().status()).isEqualTo(SagaStatus.COMPENSATING);
    assertThat(t.next().lastError()).contains("timed out");
    assertThat(t.sends()).containsExactly(new Send(1, true, 1));
  }

  @Test
  void aCompensationFailingPastItsAttemptsLeavesTheSagaStuckUntilAnOperatorRetries() {
    SagaRow row = SagaMachine.next(def, started(), failed("create-order", false), T0).next();
    assertThat(row.status()).as("nothing to compensate yet").isEqualTo(SagaStatus.COMPENSATED);

    row = SagaMachine.next(def, started(), ok("create-order"), T0).next();
    row = SagaMachine.next(def, row, failed("authorize-payment", false), T0).next();
    Transition first = SagaMachine.next(def, row, failed("create-order", true), T0);
    assertThat(first.next().status()).isEqualTo(SagaStatus.COMPENSATING);
    assertThat(first.sends()).as("retried on the wake-up, after the backoff").isEmpty();

    SagaRow second = SagaMachine.next(def, first.next(), new SagaInput.Timer(false), T0).next();
    Transition stuck = SagaMachine.next(def, second, failed("create-order", true), T0);
    assertThat(stuck.next().status()).isEqualTo(SagaStatus.STUCK);
    assertThat(stuck.next().wakeupAt()).isNull();

    Transition back = SagaMachine.retryStuck(stuck.next(), T0);
    assertThat(back.next().status()).isEqualTo(SagaStatus.COMPENSATING);
    assertThat(back.next().wakeupAt()).isEqualTo(T0);
    assertThatThrownBy(() -> SagaMachine.retryStuck(back.next(), T0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not STUCK");
  }

  @Test
  void aStaleReplyChangesNothing() {
    SagaRow row = SagaMachine.next(def, started(), ok("create-order"), T0).next();

    Transition late = SagaMachine.next(def, row, ok("create-order"), T0);
    Transition wrongKind =
        SagaMachine.next(def, row, new SagaInput.Reply("create-order", true, true, "{}"), T0);

    assertThat(late.changed()).isFalse();
    assertThat(late.sends()).isEmpty();
    assertThat(wrongKind.changed()).isFalse();
  }

  @Test
  void anIllegalStatusChangeIsRefusedByTheOneTransitionTable() {
    SagaRow completed = started().with(SagaStatus.COMPLETED, 3, 1);

    assertThatThrownBy(
            () ->
                new Transition(
                    completed, completed.with(SagaStatus.RUNNING, 0, 1), List.of(), null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("illegal transition COMPLETED -> RUNNING");
    assertThat(SagaStatus.COMPENSATING.canBecome(SagaStatus.COMPLETED)).isFalse();
  }

  @Test
  void theTimerClosesWhatTheInstanceAwaits() {
    SagaRow row = started();
    assertThat(SagaMachine.awaited(def, row)).containsExactly(new Send(0, false, 1));
    assertThat(SagaMachine.awaited(def, row.with(SagaStatus.COMPLETED, 3, 1))).isEmpty();
  }
}
