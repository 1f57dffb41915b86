package io.tandem.outbox;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.Transport;
import io.tandem.jdbc.Dialect;
import io.tandem.outbox.internal.RelayControl;
import io.tandem.outbox.internal.RelayLifecycle.State;
import io.tandem.outbox.internal.RelaySettings;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The polling relay: publishes committed outbox events through a {@link Transport}, at least once,
 * in aggregate order, with any number of instances side by side.
 *
 * <p><b>Partitions.</b> Every event belongs to one of 64 partitions derived from its aggregate.
 * Relay instances share the partitions through leases in {@code tandem_relay_partition}: each
 * heartbeats, renews what it holds and moves towards a fair share (64 / live instances), taking
 * free and expired partitions ({@code FOR UPDATE SKIP LOCKED}) and giving back extra ones when
 * others join. Each acquisition bumps the partition's <em>epoch</em>; a relay marks rows only under
 * the epoch it holds, so one whose lease moved on cannot mark anything any more.
 *
 * <p><b>Cycle.</b> (1) read due events of the owned partitions in row order — no row lock, no
 * write; an event waits while an earlier version of its aggregate is quarantined or waiting for a
 * retry; (2) publish outside any transaction, in rounds: the first pending version of every
 * aggregate in the batch, then the next versions of the aggregates whose previous version was
 * acknowledged, so an event is never sent before its predecessor was acknowledged; (3) in one short
 * transaction, mark acknowledged rows published, schedule retriable failures with exponential
 * backoff and full jitter, and quarantine permanent failures (or the last allowed attempt). A relay
 * that dies after the acknowledgement and before marking leaves its rows unpublished: the next
 * owner of the partition publishes them again with the same event id.
 *
 * <p><b>Wake-up.</b> On PostgreSQL the relay LISTENs for the outbox's insert notification and
 * starts a cycle at once; otherwise, and as a fallback, it polls every {@code pollInterval}. A
 * relay that keeps finding rows stops listening, and writers then skip the notification (see {@code
 * keepsUp}); it reads again {@code lingerWhenBusy} (5 ms) after each cycle, so that its batches
 * grow with the load; the first empty read makes it listen again.
 *
 * <pre>{@code
 * OutboxRelay relay = OutboxRelay.builder()
 *     .dataSource(dataSource)
 *     .transport(kafkaTransport)
 *     .build();
 * relay.start();
 * ...
 * relay.close(); // finishes the batch in flight, gives its partitions back, stops
 * }</pre>
 *
 * <p>Defaults: batch size {@value #DEFAULT_BATCH_SIZE}, lease {@value #DEFAULT_LEASE_SECONDS} s,
 * heartbeat every {@value #DEFAULT_HEARTBEAT_SECONDS} s, publish timeout {@value
 * #DEFAULT_PUBLISH_TIMEOUT_SECONDS} s, fallback poll every {@value #DEFAULT_POLL_INTERVAL_MILLIS}
 * ms, {@link RetryPolicy#DEFAULTS}. The relay does not own the transport or the data source: close
 * them after the relay. Thread-safe.
 *
 * <p>This class is a facade: the parts it delegates to (lifecycle, worker loop, lease scheduling,
 * batch pipeline, published marks, ordered publishing, failure policy, wake-up policy, metrics,
 * settings) live in {@code io.tandem.outbox.internal}; docs/ARCHITECTURE.md maps them.
 */
public final class OutboxRelay implements AutoCloseable {
  public static final int DEFAULT_BATCH_SIZE = 1000;
  public static final long DEFAULT_LEASE_SECONDS = 30;
  public static final long DEFAULT_HEARTBEAT_SECONDS = 5;
  public static final long DEFAULT_PUBLISH_TIMEOUT_SECONDS = 10;
  public static final long DEFAULT_POLL_INTERVAL_MILLIS = 1000;

  /** Default pause between the cycles of a busy relay, in milliseconds. */
  public static final long DEFAULT_LINGER_WHEN_BUSY_MILLIS = 5;

  /** Default number of failed cycles in a row after which the relay reports itself unhealthy. */
  public static final int DEFAULT_UNHEALTHY_AFTER_FAILED_CYCLES = 3;

  private final RelaySettings settings;
  private final RelayControl control;

  private OutboxRelay(RelaySettings settings) {
    this.settings = settings;
    this.control = new RelayControl(settings, hostName());
    Gauge.builder("tandem.relay.healthy", this, r -> r.status().healthy(settings.lease()) ? 1 : 0)
        .description("1 while the relay runs, renews its leases and its cycles work, else 0")
        .tag("relay", settings.relayId())
        .register(settings.meters());
  }

  public static Builder builder() {
    return new Builder();
  }

  /** This relay's identity, stored as owner of its partitions and in {@code published_by}. */
  public String relayId() {
    return settings.relayId();
  }

  /** Starts the worker thread (and the LISTEN connection on PostgreSQL). */
  public void start() {
    control.start(this::wakeUp);
  }

  /**
   * Runs one cycle on the calling thread, synchronously: coordinates partitions when due, then
   * reads, publishes and records one batch. For a relay that is not {@linkplain #start() started}
   * (tests, custom schedulers).
   *
   * @return the number of events read (0 when nothing was due or no partition is held)
   */
  public int runOnce() {
    return control.runOnce();
  }

  /** Ends the idle wait at once, e.g. when a notification says new rows committed. */
  public void wakeUp() {
    control.parts().signal().wakeUp();
  }

  /** Whether the worker is running (started, not stopped, not crashed). */
  public boolean isRunning() {
    return control.parts().lifecycle().state() == State.RUNNING;
  }

  /** Whether a fault injector made this relay die on purpose. */
  public boolean hasCrashed() {
    return control.parts().lifecycle().state() == State.CRASHED;
  }

  /** Events this relay marked published. */
  public long publishedCount() {
    return control.parts().metrics().published();
  }

  /** Publish attempts that failed (retried or quarantined). */
  public long failedCount() {
    return control.parts().metrics().failed();
  }

  /**
   * This instance's view of itself: partitions, last renewal, last error, counters, and whether its
   * cycles keep failing ({@link RelayStatus#healthy(Duration)}).
   */
  public RelayStatus status() {
    return control.status();
  }

  /**
   * Stops gracefully: no new batch is read, the batch in flight is published and recorded, the
   * partitions are given back so other relays take over at once, then the worker ends. Waits at
   * most the publish timeout plus 10 seconds.
   */
  @Override
  public void close() {
    control.close();
  }

  private static String hostName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "unknown";
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
    private Duration heartbeat = Duration.ofSeconds(DEFAULT_HEARTBEAT_SECONDS);
    private Duration publishTimeout = Duration.ofSeconds(DEFAULT_PUBLISH_TIMEOUT_SECONDS);
    private Duration pollInterval = Duration.ofMillis(DEFAULT_POLL_INTERVAL_MILLIS);
    private boolean listen = true;
    private Duration lingerWhenBusy = Duration.ofMillis(DEFAULT_LINGER_WHEN_BUSY_MILLIS);
    private RetryPolicy retryPolicy = RetryPolicy.DEFAULTS;
    private FaultInjector faults = FaultInjector.NONE;
    private int unhealthyAfter = DEFAULT_UNHEALTHY_AFTER_FAILED_CYCLES;
    private ThreadFactory threadFactory;
    private MeterRegistry meters;
    private RelayClock clock = RelayClock.SYSTEM;
    private ExecutorService publishExecutor;
    private ExecutorService recordExecutor;

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

    /** Events read per cycle, 1 to 10,000; default {@value OutboxRelay#DEFAULT_BATCH_SIZE}. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /**
     * How long a partition lease lasts without renewal: after a crash, the time until another relay
     * takes over. Must exceed {@code publishTimeout + heartbeatInterval}.
     */
    public Builder leaseDuration(Duration lease) {
      this.lease = lease;
      return this;
    }

    /** How often the relay heartbeats, renews its leases and rebalances. */
    public Builder heartbeatInterval(Duration heartbeat) {
      this.heartbeat = heartbeat;
      return this;
    }

    /**
     * How long a busy relay waits after a cycle before it reads again (PostgreSQL with {@code
     * listenForInserts} only: elsewhere the relay polls). Under a steady stream of commits the next
     * batch then holds the rows of this interval: fewer, larger batches cost the database, the
     * broker and the relay less per event than a read straight after each acknowledgement, at the
     * price of at most this much latency while the stream lasts. Default {@value
     * OutboxRelay#DEFAULT_LINGER_WHEN_BUSY_MILLIS} ms; zero reads again at once; at most 1 s. A
     * full batch (a backlog) is always followed by the next read at once.
     */
    public Builder lingerWhenBusy(Duration lingerWhenBusy) {
      this.lingerWhenBusy = lingerWhenBusy;
      return this;
    }

    /** How long to wait for the broker's acknowledgements of one batch. */
    public Builder publishTimeout(Duration publishTimeout) {
      this.publishTimeout = publishTimeout;
      return this;
    }

    /** The fallback poll: how long an idle relay waits before it looks for due rows again. */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
      return this;
    }

    /** Whether to LISTEN for inserts where the database supports it; default true. */
    public Builder listenForInserts(boolean listen) {
      this.listen = listen;
      return this;
    }

    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    /**
     * After how many failed cycles in a row (the read, the publish or the record threw: an outbox
     * it cannot read, a transport that throws) the relay reports itself not healthy, 1 to 1,000;
     * default {@value OutboxRelay#DEFAULT_UNHEALTHY_AFTER_FAILED_CYCLES}. A failed cycle pauses 1
     * s; the first cycle that works makes it healthy again.
     */
    public Builder unhealthyAfterFailedCycles(int cycles) {
      this.unhealthyAfter = cycles;
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

    /**
     * The relay's time source for its own deadlines and its latency figures; default {@link
     * RelayClock#SYSTEM}. Tests driving the relay with {@link OutboxRelay#runOnce()} move a clock
     * of their own instead of sleeping.
     */
    public Builder clock(RelayClock clock) {
      this.clock = clock;
      return this;
    }

    /**
     * Runs the full batches of a backlog while the worker reads the next ones (two at a time);
     * default two daemon threads of the relay's own, {@code tandem-relay-<id>-publisher}, shut down
     * as it stops. A given executor is not shut down by the relay.
     */
    public Builder publishExecutor(ExecutorService executor) {
      this.publishExecutor = executor;
      return this;
    }

    /**
     * Marks the caught-up batches published while the worker reads on; it must run one task at a
     * time, in order (a single-thread executor). Default one daemon thread of the relay's own,
     * {@code tandem-relay-<id>-recorder}, shut down as it stops; a given one is not.
     */
    public Builder recordExecutor(ExecutorService executor) {
      this.recordExecutor = executor;
      return this;
    }

    /** Validates the settings and builds the relay. */
    public OutboxRelay build() {
      require(dataSource != null, "dataSource is required");
      require(transport != null, "transport is required");
      checkSettings();
      if (dialect == null) {
        dialect = Dialect.of(dataSource);
      }
      if (meters == null) {
        meters = new SimpleMeterRegistry();
      }
      if (threadFactory == null) {
        String name = "tandem-relay-" + relayId;
        threadFactory = r -> new Thread(r, name);
      }
      return new OutboxRelay(settings());
    }

    /**
     * Checks every setting but the data source and the transport, as {@link #build()} does, without
     * touching the database: a process that connects only after its settings were accepted (the
     * {@code tandem relay} command) calls this first.
     *
     * @throws IllegalArgumentException naming the first setting that is invalid
     */
    public Builder checkSettings() {
      settings();
      return this;
    }

    private RelaySettings settings() {
      return new RelaySettings(
          relayId,
          dataSource,
          dialect,
          transport,
          batchSize,
          lease,
          heartbeat,
          publishTimeout,
          pollInterval,
          lingerWhenBusy,
          listen,
          retryPolicy,
          faults,
          unhealthyAfter,
          threadFactory,
          meters,
          clock,
          publishExecutor,
          recordExecutor);
    }

    private static void require(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }

    private static String defaultRelayId() {
      byte[] random = new byte[3];
      ThreadLocalRandom.current().nextBytes(random);
      return hostName()
          + "-"
          + ProcessHandle.current().pid()
          + "-"
          + HexFormat.of().formatHex(random);
    }
  }
}
