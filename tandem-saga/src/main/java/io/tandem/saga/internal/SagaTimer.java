package io.tandem.saga.internal;

import io.tandem.core.FaultInjector;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Transactions;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaStatus;
import io.tandem.saga.internal.Transition.Send;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
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
  private final BiConsumer<UUID, SagaStatus> afterEnd;
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
      int batchSize,
      BiConsumer<UUID, SagaStatus> afterEnd) {
    this.afterEnd = afterEnd;
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
      Batch batch;
      try {
        batch = Transactions.inTransaction(dataSource, dialect.consumerIsolation(), this::batch);
      } catch (SQLException | RuntimeException e) {
        LOG.warn("saga timer: a batch of due instances failed; retrying later", e);
        break;
      }
      for (Transition t : batch.moved()) {
        if (t.ends()) {
          afterEnd.accept(t.next().id(), t.next().status());
        }
        faultInjector.reached(FaultInjector.ORCHESTRATOR_AFTER_STEP);
      }
      handled += batch.moved().size();
      if (batch.claimed() < batchSize || batch.moved().isEmpty()) {
        break;
      }
    }
    return handled;
  }

  private record Batch(int claimed, List<Transition> moved) {}

  private Batch batch(Connection conn) throws SQLException {
    Instant now = clock.instant();
    List<UUID> due = rows.lockDue(conn, now, batchSize);
    List<Transition> moved = new ArrayList<>();
    for (UUID id : due) {
      Savepoint savepoint = conn.setSavepoint();
      try {
        Transition t = wake(conn, id, now);
        if (t != null) {
          moved.add(t);
        }
        conn.releaseSavepoint(savepoint);
      } catch (SQLException | RuntimeException e) {
        conn.rollback(savepoint);
        LOG.warn("saga timer: saga {} failed to wake; it is tried again later", id, e);
      }
    }
    return new Batch(due.size(), moved);
  }

  /** The transition a wake-up of {@code id} wrote, or null when it changed nothing. */
  private Transition wake(Connection conn, UUID id, Instant now) throws SQLException {
    SagaRow row = rows.get(conn, id).orElse(null);
    if (row == null) {
      return null; // deleted by retention since it was claimed
    }
    SagaDefinition<?> def = definitions.of(row.type());
    int open = 0;
    for (Send awaited : SagaMachine.awaited(def, row)) {
      open += stepLog.timeOutPending(conn, id, awaited.stepIndex(), awaited.compensation(), now);
    }
    Transition t = SagaMachine.next(def, row, new SagaInput.Timer(open > 0), now);
    return writer.apply(conn, def, t, now) ? t : null;
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
