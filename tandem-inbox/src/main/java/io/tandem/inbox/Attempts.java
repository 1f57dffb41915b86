package io.tandem.inbox;

import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.inbox.internal.Failures;
import io.tandem.inbox.internal.Sleeper;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.TransactionWork;
import io.tandem.jdbc.Transactions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a consumer transaction until it commits, with one retry policy for every kind of failure:
 *
 * <ul>
 *   <li>a deadlock or serialization failure runs again at once (jittered, up to {@value
 *       #MAX_CONFLICT_RETRIES} times) without using up an attempt;
 *   <li>a database that cannot be reached is waited for, with backoff up to 5 s, without using up
 *       an attempt;
 *   <li>a handler's failure ({@link HandlerFailure}) uses up one attempt of the {@link RetryPolicy}
 *       and waits its backoff; when none is left the caller dead-letters the message;
 *   <li>any other failure — the commit, the consumer's own statements — says nothing about the
 *       message: it is retried like an unreachable database and never dead-letters it (or, for a
 *       batch, handed back so that its messages go one by one).
 * </ul>
 *
 * <p>{@link Refused} and {@link AlreadyProcessed}, which roll the transaction back on purpose, come
 * back as {@link Rejected}. All waits go through the injected {@link Sleeper}. Thread-safe.
 */
final class Attempts {
  static final int MAX_CONFLICT_RETRIES = 20;
  private static final Duration MAX_STORE_WAIT = Duration.ofSeconds(5);
  private static final Logger LOG = LoggerFactory.getLogger(Attempts.class);

  /** How the attempts ended. */
  sealed interface Ending<T> permits Done, Rejected, Exhausted, Failed, Stopped {}

  /** Committed, with the transaction's result. */
  record Done<T>(T value) implements Ending<T> {}

  /** Rolled back on purpose ({@link Refused} or {@link AlreadyProcessed}) after some failures. */
  record Rejected<T>(RuntimeException verdict, int failedAttempts) implements Ending<T> {}

  /** The handler failed on every attempt the policy allows. */
  record Exhausted<T>(Throwable failure, int attempts) implements Ending<T> {}

  /** A failure outside the handlers, when the caller asked to get those back. */
  record Failed<T>(Throwable failure) implements Ending<T> {}

  /** Stopping cut a wait short: nothing committed, nothing may be settled. */
  record Stopped<T>() implements Ending<T> {}

  private final DataSource dataSource;
  private final Dialect dialect;
  private final String consumer;
  private final RetryPolicy policy;
  private final Sleeper sleeper;
  private final ConsumerMetrics metrics;

  Attempts(
      DataSource dataSource,
      Dialect dialect,
      String consumer,
      RetryPolicy policy,
      Sleeper sleeper,
      ConsumerMetrics metrics) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.consumer = consumer;
    this.policy = policy;
    this.sleeper = sleeper;
    this.metrics = metrics;
  }

  /**
   * Runs {@code work} in a transaction until it commits or the attempts end.
   *
   * @param what names the work in logs
   * @param failedBefore handler attempts that failed already (in a batch)
   * @param storeFailuresBack whether a failure outside the handlers ends the attempts ({@link
   *     Failed}) instead of being retried
   */
  <T> Ending<T> run(
      String what,
      TransactionWork<T, SQLException> work,
      int failedBefore,
      boolean storeFailuresBack,
      BooleanSupplier stopping) {
    int attempts = failedBefore;
    int conflicts = 0;
    int waits = 0;
    while (true) {
      Duration delay;
      try {
        return new Done<>(tx(work));
      } catch (FaultInjector.SimulatedCrash crash) {
        throw crash;
      } catch (Refused | AlreadyProcessed verdict) {
        return new Rejected<>(verdict, attempts);
      } catch (SQLException | RuntimeException | Error failure) {
        if (Failures.transientConflict(failure) && conflicts < MAX_CONFLICT_RETRIES) {
          conflicts++;
          LOG.debug("consumer {}: transaction conflict {}; again", consumer, what);
          delay = Duration.ofMillis(ThreadLocalRandom.current().nextLong(5, 50L * conflicts));
        } else if (!Failures.databaseUnavailable(failure)
            && (failure instanceof HandlerFailure || Failures.abortedByEarlierStatement(failure))) {
          Throwable cause = failure instanceof HandlerFailure ? failure.getCause() : failure;
          attempts++;
          metrics.failedAttempts.increment();
          if (!policy.mayRetry(attempts)) {
            return new Exhausted<>(cause, attempts);
          }
          LOG.warn(
              "consumer {}: handler failed {} (attempt {}); retrying",
              consumer,
              what,
              attempts,
              cause);
          delay = policy.delayAfter(attempts);
        } else if (storeFailuresBack && !Failures.databaseUnavailable(failure)) {
          return new Failed<>(failure);
        } else {
          waits++;
          metrics.storeFailures.increment();
          LOG.warn(
              "consumer {}: the database failed {} ({}); waiting, then again (attempts unused)",
              consumer,
              what,
              Failures.describe(failure));
          delay = storeDelay(waits);
        }
      }
      if (!sleeper.sleep(delay, stopping)) {
        return new Stopped<>();
      }
    }
  }

  /** Writes that must happen whatever fails (a dead letter): retried until done or stopping. */
  boolean untilDone(String what, TransactionWork<Void, SQLException> work, BooleanSupplier stop) {
    for (int failures = 1; ; failures++) {
      try {
        tx(work);
        return true;
      } catch (FaultInjector.SimulatedCrash crash) {
        throw crash;
      } catch (SQLException | RuntimeException e) {
        LOG.warn("consumer {}: {} failed; retrying", consumer, what, e);
        if (!sleeper.sleep(storeDelay(failures), stop)) {
          return false;
        }
      }
    }
  }

  /** The policy's backoff after {@code failures}, through the sleeper; false when stopping. */
  boolean backoff(int failures, BooleanSupplier stopping) {
    return sleeper.sleep(policy.delayAfter(failures), stopping);
  }

  boolean mayRetry(int failures) {
    return policy.mayRetry(failures);
  }

  <T> T tx(TransactionWork<T, SQLException> work) throws SQLException {
    return Transactions.inTransaction(dataSource, dialect.consumerIsolation(), work);
  }

  static Duration storeDelay(int failures) {
    return Duration.ofMillis(Math.min(MAX_STORE_WAIT.toMillis(), 100L << Math.min(failures, 10)));
  }
}
