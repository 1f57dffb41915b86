package io.tandem.outbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.PublishException;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.outbox.internal.ClaimedEvent;
import io.tandem.outbox.internal.OutboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The polling relay: publishes committed outbox events through a {@link Transport}, at least once.
 *
 * <p>Each cycle (1) claims up to {@code batchSize} due rows in a short transaction with {@code FOR
 * UPDATE SKIP LOCKED} in row-id order, setting a lease ({@code claimed_by}, {@code lease_until}),
 * and commits; (2) publishes the batch outside any transaction and waits for the broker's
 * acknowledgements; (3) marks acknowledged rows published, and schedules failed ones for a retry
 * with exponential backoff and full jitter, or quarantines them (permanent error, or {@link
 * RetryPolicy#maxAttempts()} reached). No lock or transaction is held while the broker is asked.
 *
 * <p>A relay that dies between the acknowledgement and the marking leaves its rows claimed; when
 * the lease expires another relay (or the same one, restarted) publishes them again with the same
 * event id. Consumers deduplicate with the inbox. Several relays on one table claim disjoint rows.
 *
 * <pre>{@code
 * OutboxRelay relay = OutboxRelay.builder()
 *     .dataSource(dataSource)
 *     .transport(kafkaTransport)
 *     .build();
 * relay.start();
 * ...
 * relay.close(); // finishes the batch in flight, then stops
 * }</pre>
 *
 * <p>Defaults: batch size {@value #DEFAULT_BATCH_SIZE}, lease {@value #DEFAULT_LEASE_SECONDS} s,
 * publish timeout {@value #DEFAULT_PUBLISH_TIMEOUT_SECONDS} s, idle poll interval {@value
 * #DEFAULT_POLL_INTERVAL_MILLIS} ms, {@link RetryPolicy#DEFAULTS}. The relay does not own the
 * transport or the data source: close them after the relay. Thread-safe.
 */
public final class OutboxRelay implements AutoCloseable {
  public static final int DEFAULT_BATCH_SIZE = 200;
  public static final long DEFAULT_LEASE_SECONDS = 60;
  public static final long DEFAULT_PUBLISH_TIMEOUT_SECONDS = 30;
  public static final long DEFAULT_POLL_INTERVAL_MILLIS = 500;

  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
  private static final Duration ERROR_PAUSE = Duration.ofSeconds(1);

  private enum State {
    NEW,
    RUNNING,
    STOPPING,
    STOPPED,
    CRASHED
  }

  private final String relayId;
  private final OutboxStore store;
  private final Transport transport;
  private final int batchSize;
  private final Duration lease;
  private final Duration publishTimeout;
  private final Duration pollInterval;
  private final RetryPolicy retryPolicy;
  private final FaultInjector faults;
  private final ThreadFactory threadFactory;

  private final Counter publishedCounter;
  private final MeterRegistry meters;
  private final Timer batchTimer;
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private boolean wakeRequested;
  private volatile State state = State.NEW;
  private Thread worker;

  private OutboxRelay(Builder b) {
    this.relayId = b.relayId;
    this.store = new OutboxStore(b.dataSource, b.dialect);
    this.transport = b.transport;
    this.batchSize = b.batchSize;
    this.lease = b.lease;
    this.publishTimeout = b.publishTimeout;
    this.pollInterval = b.pollInterval;
    this.retryPolicy = b.retryPolicy;
    this.faults = b.faults;
    this.threadFactory = b.threadFactory;
    this.meters = b.meters;
    this.publishedCounter =
        Counter.builder("tandem.relay.published")
            .description("Events acknowledged by the broker and marked published")
            .tag("transport", transport.name())
            .register(meters);
    this.batchTimer =
        Timer.builder("tandem.relay.batch")
            .description("Claim, publish and mark of one batch")
            .tag("transport", transport.name())
            .register(meters);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** This relay's identity, stored in {@code claimed_by} of the rows it holds. */
  public String relayId() {
    return relayId;
  }

  /** Starts the relay's worker thread. */
  public synchronized void start() {
    if (state != State.NEW) {
      throw new IllegalStateException("relay " + relayId + " was already started (" + state + ")");
    }
    state = State.RUNNING;
    worker = threadFactory.newThread(this::run);
    worker.start();
    log.info("relay {} started on transport {}", relayId, transport.name());
  }

  /**
   * Claims, publishes and records one batch on the calling thread.
   *
   * @return the number of events claimed (0 when nothing was due)
   */
  public int runOnce() {
    List<ClaimedEvent> batch = store.claim(relayId, batchSize, lease);
    if (batch.isEmpty()) {
      return 0;
    }
    Timer.Sample sample = Timer.start(meters);
    faults.reached(FaultInjector.RELAY_AFTER_CLAIM);
    List<Event> events = new ArrayList<>(batch.size());
    for (ClaimedEvent c : batch) {
      events.add(c.event());
    }
    List<PublishOutcome> outcomes = transport.publish(events, publishTimeout);
    faults.reached(FaultInjector.RELAY_AFTER_ACK);
    record(batch, outcomes);
    sample.stop(batchTimer);
    return batch.size();
  }

  private void record(List<ClaimedEvent> batch, List<PublishOutcome> outcomes) {
    if (outcomes.size() != batch.size()) {
      throw new IllegalStateException(
          "transport "
              + transport.name()
              + " returned "
              + outcomes.size()
              + " outcomes for "
              + batch.size()
              + " events");
    }
    List<Long> acknowledged = new ArrayList<>(batch.size());
    List<OutboxStore.Failure> failures = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      ClaimedEvent claimed = batch.get(i);
      PublishOutcome outcome = outcomes.get(i);
      if (!outcome.eventId().equals(claimed.event().eventId())) {
        throw new IllegalStateException(
            "transport " + transport.name() + " returned outcomes out of order at index " + i);
      }
      if (outcome.acknowledged()) {
        acknowledged.add(claimed.rowId());
      } else {
        failures.add(failure(claimed, outcome.failure()));
      }
    }
    int marked = store.record(relayId, acknowledged, failures);
    published.addAndGet(marked);
    publishedCounter.increment(marked);
    failed.addAndGet(failures.size());
    if (marked < acknowledged.size()) {
      log.warn(
          "relay {}: {} of {} acknowledged events had lost their lease before marking; another"
              + " relay publishes them again (consumers deduplicate)",
          relayId,
          acknowledged.size() - marked,
          acknowledged.size());
    }
  }

  private OutboxStore.Failure failure(ClaimedEvent claimed, PublishException error) {
    ErrorClass errorClass = error.errorClass();
    boolean quarantine = !error.retriable() || !retryPolicy.mayRetry(claimed.attempt());
    Duration delay = quarantine ? Duration.ZERO : retryPolicy.delayAfter(claimed.attempt());
    meters.counter("tandem.relay.failures", "error_class", errorClass.name()).increment();
    if (quarantine) {
      log.error(
          "relay {}: quarantining {} after attempt {} ({}): {}",
          relayId,
          claimed.event(),
          claimed.attempt(),
          errorClass,
          error.getMessage());
    } else {
      log.warn(
          "relay {}: attempt {} of {} failed ({}), retry in {} ms: {}",
          relayId,
          claimed.attempt(),
          claimed.event(),
          errorClass,
          delay.toMillis(),
          error.getMessage());
    }
    return new OutboxStore.Failure(
        claimed.rowId(), errorClass, error.getMessage(), quarantine, delay);
  }

  private void run() {
    try {
      while (state == State.RUNNING) {
        int claimed;
        try {
          claimed = runOnce();
        } catch (FaultInjector.SimulatedCrash crash) {
          throw crash;
        } catch (RuntimeException e) {
          log.error("relay {}: cycle failed, pausing {} ms", relayId, ERROR_PAUSE.toMillis(), e);
          pause(ERROR_PAUSE);
          continue;
        }
        if (claimed < batchSize) {
          pause(pollInterval);
        }
      }
      state = State.STOPPED;
    } catch (FaultInjector.SimulatedCrash crash) {
      state = State.CRASHED;
      log.warn(
          "relay {} crashed on purpose ({}); its leases expire by themselves",
          relayId,
          crash.getMessage());
    }
  }

  private void pause(Duration d) {
    lock.lock();
    try {
      long nanos = d.toNanos();
      while (!wakeRequested && nanos > 0 && state == State.RUNNING) {
        nanos = wake.awaitNanos(nanos);
      }
      wakeRequested = false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      state = State.STOPPING;
    } finally {
      lock.unlock();
    }
  }

  /** Ends the idle wait at once, e.g. when a notification says new rows committed. */
  public void wakeUp() {
    lock.lock();
    try {
      wakeRequested = true;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the worker is running (started, not stopped, not crashed). */
  public boolean isRunning() {
    return state == State.RUNNING;
  }

  /** Whether a fault injector made this relay die on purpose. */
  public boolean hasCrashed() {
    return state == State.CRASHED;
  }

  /** Events this relay marked published. */
  public long publishedCount() {
    return published.get();
  }

  /** Publish attempts that failed (retried or quarantined). */
  public long failedCount() {
    return failed.get();
  }

  /**
   * Stops gracefully: no new batch is claimed, the batch in flight is published and recorded, then
   * the worker ends. Waits at most the publish timeout plus 10 seconds.
   */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      if (state == State.RUNNING) {
        state = State.STOPPING;
      }
      t = worker;
    }
    wakeUp();
    if (t == null) {
      state = State.STOPPED;
      return;
    }
    try {
      t.join(publishTimeout.plusSeconds(10).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      log.warn("relay {} did not stop in time; its leases expire by themselves", relayId);
    } else {
      log.info("relay {} stopped; published {} events", relayId, published.get());
    }
  }

  /** Builds an {@link OutboxRelay}; {@code dataSource} and {@code transport} are required. */
  public static final class Builder {
    private DataSource dataSource;
    private Dialect dialect;
    private Transport transport;
    private String relayId = defaultRelayId();
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration lease = Duration.ofSeconds(DEFAULT_LEASE_SECONDS);
    private Duration publishTimeout = Duration.ofSeconds(DEFAULT_PUBLISH_TIMEOUT_SECONDS);
    private Duration pollInterval = Duration.ofMillis(DEFAULT_POLL_INTERVAL_MILLIS);
    private RetryPolicy retryPolicy = RetryPolicy.DEFAULTS;
    private FaultInjector faults = FaultInjector.NONE;
    private ThreadFactory threadFactory;
    private MeterRegistry meters;

    private Builder() {}

    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /** The database family; detected from the data source when not set. */
    public Builder dialect(Dialect dialect) {
      this.dialect = dialect;
      return this;
    }

    public Builder transport(Transport transport) {
      this.transport = transport;
      return this;
    }

    /** A unique name for this relay instance; default host, process id and a random suffix. */
    public Builder relayId(String relayId) {
      this.relayId = relayId;
      return this;
    }

    /** Events per claim, 1 to 10,000; default {@value OutboxRelay#DEFAULT_BATCH_SIZE}. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** How long claimed rows stay reserved; must exceed the publish timeout. */
    public Builder leaseDuration(Duration lease) {
      this.lease = lease;
      return this;
    }

    /** How long to wait for the broker's acknowledgements of one batch. */
    public Builder publishTimeout(Duration publishTimeout) {
      this.publishTimeout = publishTimeout;
      return this;
    }

    /** How long an idle relay waits before it looks for due rows again. */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
      return this;
    }

    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    /** Fault points for failure drills; default {@link FaultInjector#NONE}. */
    public Builder faultInjector(FaultInjector faults) {
      this.faults = faults;
      return this;
    }

    /** Creates the worker thread; default a non-daemon thread named {@code tandem-relay-<id>}. */
    public Builder threadFactory(ThreadFactory threadFactory) {
      this.threadFactory = threadFactory;
      return this;
    }

    /** Where metrics go ({@code tandem.relay.*}); default a private in-memory registry. */
    public Builder meterRegistry(MeterRegistry meters) {
      this.meters = meters;
      return this;
    }

    /** Validates the settings and builds the relay. */
    public OutboxRelay build() {
      require(dataSource != null, "dataSource is required");
      require(transport != null, "transport is required");
      require(relayId != null && !relayId.isBlank(), "relayId must not be blank");
      require(
          batchSize >= 1 && batchSize <= 10_000,
          "batchSize must be between 1 and 10000, was " + batchSize);
      positive("publishTimeout", publishTimeout);
      positive("pollInterval", pollInterval);
      positive("leaseDuration", lease);
      require(
          lease.compareTo(publishTimeout) > 0,
          "leaseDuration ("
              + lease
              + ") must exceed publishTimeout ("
              + publishTimeout
              + "), or another relay could take over rows that are still being published");
      Objects.requireNonNull(retryPolicy, "retryPolicy");
      Objects.requireNonNull(faults, "faultInjector");
      if (dialect == null) {
        try (Connection c = dataSource.getConnection()) {
          dialect = Dialect.of(c);
        } catch (SQLException e) {
          throw new JdbcException("cannot connect to detect the database dialect", e);
        }
      }
      if (meters == null) {
        meters = new SimpleMeterRegistry();
      }
      if (threadFactory == null) {
        String name = "tandem-relay-" + relayId;
        threadFactory = r -> new Thread(r, name);
      }
      return new OutboxRelay(this);
    }

    private static void require(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }

    private static void positive(String name, Duration d) {
      require(
          d != null && !d.isNegative() && !d.isZero(),
          name + " must be a positive duration, was " + d);
    }

    private static String defaultRelayId() {
      String host;
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (java.io.IOException e) {
        host = "host";
      }
      byte[] random = new byte[3];
      ThreadLocalRandom.current().nextBytes(random);
      return host + "-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
    }
  }
}
