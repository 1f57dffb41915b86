package io.tandem.saga.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.saga.SagaStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A reply applied in a transaction that rolled back and never came back must not stay in the
 * orchestrator's memory for good; one still waiting for its commit must.
 */
class UnsettledStepsTest {
  private final SteppedClock clock = new SteppedClock();
  private final UnsettledSteps steps = new UnsettledSteps(clock);

  @Test
  void aRolledBackReplyThatIsNeverAppliedAgainIsDroppedAfterTheRetention() {
    UUID rolledBack = UUID.randomUUID();
    steps.applied(rolledBack, UUID.randomUUID(), null); // its transaction rolls back: no commit
    clock.advance(UnsettledSteps.RETENTION.plusSeconds(1));
    UUID later = UUID.randomUUID();
    steps.applied(later, UUID.randomUUID(), SagaStatus.COMPLETED);

    assertThat(steps.size()).isEqualTo(1);
    assertThat(steps.take(rolledBack)).isNull();
    assertThat(steps.take(later).endedIn()).isEqualTo(SagaStatus.COMPLETED);
  }

  @Test
  void aSweepKeepsTheRepliesStillWithinTheRetention() {
    UUID old = UUID.randomUUID();
    steps.applied(old, UUID.randomUUID(), null);
    clock.advance(Duration.ofMinutes(9));
    UUID recent = UUID.randomUUID();
    steps.applied(recent, UUID.randomUUID(), null);
    clock.advance(Duration.ofMinutes(2)); // past the first sweep: old is 11 min, recent 2 min
    steps.applied(UUID.randomUUID(), UUID.randomUUID(), null);

    assertThat(steps.take(old)).isNull();
    assertThat(steps.take(recent)).isNotNull();
    assertThat(steps.size()).isEqualTo(1);
  }

  @Test
  void aRetriedReplyReplacesItsEntryAndACommitTakesItOnce() {
    UUID reply = UUID.randomUUID();
    UUID saga = UUID.randomUUID();
    steps.applied(reply, saga, null);
    steps.applied(reply, saga, SagaStatus.COMPENSATED);

    assertThat(steps.take(reply).endedIn()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(steps.take(reply)).isNull();
  }

  private static final class SteppedClock extends Clock {
    private Instant now = Instant.parse("2026-01-01T00:00:00Z");

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
