package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Attempts: a failing handler retried then dead-lettered with nothing of it committed, an
 * unreachable database and deadlocks using up no attempts, the acknowledgement only after the
 * commit. Subclassed per database.
 */
abstract class ProcessorRetryTest extends ProcessorFixture {
  @Test
  void anErrorFromAHandlerIsRetriedThenDeadLetteredAndTheStreamFlowsOn() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    InboxProcessor p =
        processor()
            .on(
                "OrderBroken",
                (c, e) -> {
                  calls.incrementAndGet();
                  throw new NoClassDefFoundError("com/example/Missing");
                })
            .build();
    TestMessage broken = TestMessage.of(event("o-1", 1, "OrderBroken", 1));

    assertThat(p.process(broken)).isEqualTo(Outcome.DEAD_LETTERED);

    assertThat(calls.get()).as("the retry policy's 3 attempts").isEqualTo(3);
    assertThat(p.failedAttempts()).isEqualTo(3);
    assertThat(broken.acks.get()).isEqualTo(1);
    DeadLetter dead = p.deadLetters(DeadLetterStatus.DEAD, 0, 10).get(0);
    assertThat(dead.reasonClass()).isEqualTo(DeadLetterReason.RETRIES_EXHAUSTED);
    assertThat(dead.reason()).contains("NoClassDefFoundError", "com/example/Missing");
    assertThat(p.process(TestMessage.of(event("o-2", 1)))).isEqualTo(Outcome.APPLIED);
  }

  @Test
  void aFailingHandlerIsRetriedThenDeadLetteredAndNothingOfItCommits() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    InboxProcessor p =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(4).build())
            .on(
                "OrderPlaced",
                (c, e) -> {
                  calls.incrementAndGet();
                  invoice(c, e); // written, then rolled back with the failure
                  throw new IllegalStateException("downstream rule failed");
                })
            .build();

    assertThat(p.process(TestMessage.of(event("o-1", 1)))).isEqualTo(Outcome.DEAD_LETTERED);

    assertThat(calls.get()).isEqualTo(4);
    assertThat(p.failedAttempts()).isEqualTo(4);
    assertThat(invoices()).isEmpty();
    DeadLetter dead = p.deadLetters(DeadLetterStatus.DEAD, 0, 10).get(0);
    assertThat(dead.reasonClass()).isEqualTo(DeadLetterReason.RETRIES_EXHAUSTED);
    assertThat(dead.attempts()).isEqualTo(4);
    assertThat(dead.reason()).contains("downstream rule failed");
  }

  @Test
  void anUnreachableDatabaseDoesNotUseUpAttempts() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    InboxProcessor p =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(2).build())
            .on(
                "OrderPlaced",
                (c, e) -> {
                  if (calls.incrementAndGet() <= 3) {
                    throw new SQLTransientConnectionException("connection reset", "08006");
                  }
                  invoice(c, e);
                })
            .build();

    assertThat(p.process(TestMessage.of(event("o-1", 1)))).isEqualTo(Outcome.APPLIED);

    assertThat(calls.get()).isEqualTo(4);
    assertThat(p.failedAttempts()).as("connection failures are not the message's").isZero();
    assertThat(invoices()).containsExactly("o-1#1");
  }

  @Test
  void deadlocksAreRetriedWithoutUsingUpAttempts() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    InboxProcessor p =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(2).build())
            .on(
                "OrderPlaced",
                (c, e) -> {
                  if (calls.incrementAndGet() <= 5) {
                    throw new java.sql.SQLTransactionRollbackException(
                        "Deadlock found", "40001", 1213);
                  }
                  invoice(c, e);
                })
            .build();

    assertThat(p.process(TestMessage.of(event("o-1", 1)))).isEqualTo(Outcome.APPLIED);

    assertThat(calls.get()).isEqualTo(6);
    assertThat(p.failedAttempts()).isZero();
    assertThat(invoices()).containsExactly("o-1#1");
  }

  @Test
  void theMessageIsAcknowledgedOnlyAfterTheCommit() throws SQLException {
    InboxProcessor p =
        processor()
            .faultInjector(
                point -> {
                  if (point.equals(FaultInjector.CONSUMER_AFTER_COMMIT)) {
                    throw new FaultInjector.SimulatedCrash(point);
                  }
                })
            .build();
    TestMessage message = TestMessage.of(event("o-1", 1));

    assertThatThrownBy(() -> p.process(message)).isInstanceOf(FaultInjector.SimulatedCrash.class);

    assertThat(invoices()).as("committed").containsExactly("o-1#1");
    assertThat(message.acks.get()).as("not acknowledged").isZero();
    InboxProcessor restarted = processor().build();
    assertThat(restarted.process(message)).isEqualTo(Outcome.DUPLICATE);
    assertThat(message.acks.get()).isEqualTo(1);
    assertThat(invoices()).containsExactly("o-1#1");
  }

  /**
   * A drill's crash from the afterCommit hook (the saga orchestrator reaches its step fault point
   * there) ends the processing after the commit and before the acknowledgement.
   */
  @Test
  void aDrillsCrashFromTheAfterCommitHookComesAfterTheCommitAndBeforeTheAck() throws Exception {
    InboxProcessor p =
        processor()
            .afterCommit(
                (e, o) -> {
                  throw new FaultInjector.SimulatedCrash(FaultInjector.ORCHESTRATOR_AFTER_STEP);
                })
            .build();
    TestMessage m = TestMessage.of(event("o-hook", 1));

    assertThatThrownBy(() -> p.process(m)).isInstanceOf(FaultInjector.SimulatedCrash.class);

    assertThat(invoices()).containsExactly("o-hook#1");
    assertThat(m.acks.get()).isZero();
  }
}
