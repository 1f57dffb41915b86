package io.tandem.saga.internal;

import io.tandem.core.FaultInjector;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Transactions;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.internal.Transition.Send;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires due wake-ups (step deadlines, retries, saga deadlines): a batch of due instances, claimed
 * with {@code FOR UPDATE SKIP LOCKED} so several orchestrators share the work, is handled in one
 * transaction with a savepoint per instance (one that fails is rolled back alone and tried again on
 * a later tick). Runs on a scheduler the caller gives, or on its own single thread. Thread-safe.
 */
public final class SagaTimer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SagaTimer.class);

  private final DataSource dataSource;
  private final Dialect dialect;
  private final SagaRows rows;
  private final StepLog stepLog;
  private final Definitions definitions;
  private final TransitionWriter writer;
  private final Clock clock;
  private final FaultInjector faultInjector;
  private final int batchSize;
  private ScheduledFuture<?> ticks; // guarded by this
  private ScheduledExecutorService owned; // guarded by this
  private volatile boolean closed;

  public SagaTimer(
      DataSource dataSource,
      Dialect dialect,
      SagaRows rows,
      StepLog stepLog,
      Definitions definitions,
      TransitionWriter writer,
      Clock clock,
      FaultInjector faultInjector,
      int batchSize) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.rows = rows;
    this.stepLog = stepLog;
    this.definitions = definitions;
    this.writer = writer;
    this.clock = clock;
    this.faultInjector = faultInjector;
    this.batchSize = batchSize;
  }

  /**
   * Ticks every {@code interval} on {@code scheduler}; with a null scheduler, on a single daemon
   * thread named {@code threadName} that {@link #close} stops.
   */
  public synchronized void start(
      ScheduledExecutorService scheduler, Duration interval, String threadName) {
    if (ticks != null || closed) {
      throw new IllegalStateException("the saga timer is already started or closed");
    }
    ScheduledExecutorService on = scheduler;
    if (on == null) {
      owned =
          java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, threadName);
                t.setDaemon(true);
                return t;
              });
      on = owned;
    }
    long millis = interval.toMillis();
    ticks = on.scheduleWithFixedDelay(this::tick, millis, millis, TimeUnit.MILLISECONDS);
  }

  private void tick() {
    try {
      runDue();
    } catch (FaultInjector.SimulatedCrash crash) {
      LOG.warn("saga timer: {}", crash.getMessage());
      throw crash; // ends the schedule, as a crash ends the process
    } catch (RuntimeException e) {
      LOG.warn("saga timer failed; next tick goes on", e);
    }
  }

  /** Handles every due instance, a batch per transaction; returns how many moved on. */
  public int runDue() {
    int handled = 0;
    while (!closed) {
      int[] batch; // {claimed, moved}
      try {
        batch = Transactions.inTransaction(dataSource, dialect.consumerIsolation(), this::batch);
      } catch (SQLException | RuntimeException e) {
        LOG.warn("saga timer: a batch of due instances failed; retrying later", e);
        break;
      }
      for (int i = 0; i < batch[1]; i++) {
        faultInjector.reached(FaultInjector.ORCHESTRATOR_AFTER_STEP);
      }
      handled += batch[1];
      if (batch[0] < batchSize || batch[1] == 0) {
        break;
      }
    }
    return handled;
  }

  private int[] batch(Connection conn) throws SQLException {
    Instant now = clock.instant();
    List<UUID> due = rows.lockDue(conn, now, batchSize);
    int moved = 0;
    for (UUID id : due) {
      Savepoint savepoint = conn.setSavepoint();
      try {
        if (wake(conn, id, now)) {
          moved++;
        }
        conn.releaseSavepoint(savepoint);
      } catch (SQLException | RuntimeException e) {
        conn.rollback(savepoint);
        LOG.warn("saga timer: saga {} failed to wake; it is tried again later", id, e);
      }
    }
    return new int[] {due.size(), moved};
  }

  private boolean wake(Connection conn, UUID id, Instant now) throws SQLException {
    SagaRow row = rows.get(conn, id).orElse(null);
    if (row == null) {
      return false; // deleted by retention since it was claimed
    }
    SagaDefinition<?> def = definitions.of(row.type());
    int open = 0;
    for (Send awaited : SagaMachine.awaited(def, row)) {
      open += stepLog.timeOutPending(conn, id, awaited.stepIndex(), awaited.compensation(), now);
    }
    return writer.apply(
        conn, def, SagaMachine.next(def, row, new SagaInput.Timer(open > 0), now), now);
  }

  /** Stops ticking (and the own thread, waiting up to 5 s). Idempotent. */
  @Override
  public void close() {
    closed = true;
    ScheduledExecutorService own;
    synchronized (this) {
      if (ticks != null) {
        ticks.cancel(false);
      }
      own = owned;
    }
    if (own != null) {
      own.shutdownNow();
      try {
        own.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
