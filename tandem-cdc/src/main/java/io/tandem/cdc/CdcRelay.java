package io.tandem.cdc;

import io.tandem.cdc.internal.CdcDialect;
import io.tandem.cdc.internal.CdcMetrics;
import io.tandem.cdc.internal.CdcStore;
import io.tandem.cdc.internal.ChangeRecords;
import io.tandem.cdc.internal.Drain;
import io.tandem.cdc.internal.EngineConfig;
import io.tandem.cdc.internal.EngineRunner;
import io.tandem.cdc.internal.HeldAggregates;
import io.tandem.cdc.internal.OffsetStoreContext;
import io.tandem.cdc.internal.RecordHandler;
import io.tandem.cdc.internal.RelayBackground;
import io.tandem.cdc.internal.RelayDataSource;
import io.tandem.cdc.internal.RelayLifecycle;
import io.tandem.cdc.internal.RoundPublisher;
import io.tandem.cdc.internal.Settlement;
import io.tandem.cdc.internal.SetupCheck;
import io.tandem.cdc.internal.SlotMonitor;
import io.tandem.cdc.internal.StartupGate;
import io.tandem.core.ErrorSummary;
import io.tandem.core.TandemException;
import io.tandem.core.spi.Transport;
import io.tandem.outbox.OutboxRow;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDC relay: Debezium's embedded engine reads the inserts into {@code tandem_outbox} from
 * PostgreSQL's WAL (logical decoding, pgoutput) or MariaDB's binlog and the relay publishes them
 * through a {@link Transport} — the same events, built by the same code ({@link OutboxRow}), as the
 * polling {@link io.tandem.outbox.OutboxRelay}, so consumers cannot tell which relay published.
 *
 * <pre>{@code
 * try (CdcRelay relay = CdcRelay.builder()
 *         .jdbcUrl("jdbc:postgresql://db:5432/shop?user=relay&password=...")
 *         .transport(kafkaTransport)
 *         .slotName("shop_outbox")
 *         .build()) {
 *   relay.start(); // checks the setup first: CdcSetupException says what to change
 *   ...
 * }
 * }</pre>
 *
 * <p><b>Order and failures.</b> Events are published in the WAL's commit order, in rounds per
 * aggregate: no event goes before its predecessor's acknowledgement. A failed publish holds its
 * aggregate, not the stream: the row gets the polling relay's retry (backoff, {@code attempts},
 * {@code last_error}) or quarantine, and that aggregate's later events are left in the database,
 * where the relay's drain publishes them in version order once the failed one went. When not one
 * event of a batch can be published (the broker is down), the stream waits and retries in place.
 *
 * <p><b>Position.</b> Debezium's offsets are stored in {@code tandem_cdc_offset} (an offset store
 * of Tandem's own); a record's position is marked processed only after the broker acknowledged it
 * and its row was marked published, or its row was left in the database for a retry. A crash loses
 * nothing: the engine resumes from the stored position and re-sends what came after it (duplicates,
 * which the inbox absorbs), and every row not marked published when the relay starts is published
 * again by the drain. Acknowledged rows are marked published, so {@code tandem outbox status} and
 * retention work as with the polling relay.
 *
 * <p><b>Setup.</b> {@link #start()} checks {@code wal_level = logical}, the REPLICATION privilege,
 * that the slot is not in use by another client, and that the publication exists (or creates it,
 * {@link Builder#createPublication(boolean)}) and covers the outbox and {@code
 * tandem_cdc_heartbeat}. Heartbeats ({@link Builder#heartbeatInterval(Duration)}) write a row into
 * the publication, so an idle outbox does not keep the slot from releasing WAL.
 *
 * <p>Defaults: slot and publication {@value #DEFAULT_SLOT_NAME}, heartbeat {@value
 * #DEFAULT_HEARTBEAT_SECONDS} s, offset flush {@value #DEFAULT_OFFSET_FLUSH_MILLIS} ms, publish
 * timeout {@value #DEFAULT_PUBLISH_TIMEOUT_SECONDS} s, drain every {@value
 * #DEFAULT_DRAIN_INTERVAL_MILLIS} ms, monitoring every {@value #DEFAULT_MONITOR_SECONDS} s, lag
 * alert above {@value #DEFAULT_LAG_ALERT_BYTES} bytes or {@value #DEFAULT_LAG_ALERT_SECONDS} s.
 *
 * <p>The relay only wires its parts, each in a class of its own (docs/ARCHITECTURE.md, "CDC").
 *
 * <p>Thread safety: {@link #start()}, {@link #close()} and {@link #status()} may be called from any
 * thread. One relay per slot: PostgreSQL lets one client read a slot at a time.
 */
public final class CdcRelay implements AutoCloseable {
  public static final String DEFAULT_SLOT_NAME = "tandem_cdc";
  public static final long DEFAULT_HEARTBEAT_SECONDS = 10;
  public static final long DEFAULT_OFFSET_FLUSH_MILLIS = 1000;
  public static final long DEFAULT_PUBLISH_TIMEOUT_SECONDS = 10;
  public static final long DEFAULT_DRAIN_INTERVAL_MILLIS = 1000;
  public static final long DEFAULT_MONITOR_SECONDS = 10;
  public static final long DEFAULT_LAG_ALERT_BYTES = 256L * 1024 * 1024;
  public static final long DEFAULT_LAG_ALERT_SECONDS = 300;
  public static final long DEFAULT_START_TIMEOUT_SECONDS = 60;

  private static final Logger log = LoggerFactory.getLogger(CdcRelay.class);

  private final CdcRelaySettings settings;
  private final CdcDialect dialect;
  private final RelayLifecycle lifecycle;
  private final CdcStore store;
  private final HeldAggregates held = new HeldAggregates();
  private final RoundPublisher publisher;
  private final CdcMetrics metrics;
  private final SlotMonitor monitor;
  private final Settlement settlement;
  private final EngineRunner engine;
  private RelayBackground background;
  private String contextId;

  private CdcRelay(CdcRelaySettings s) {
    this.settings = s;
    this.dialect = CdcDialect.ofUrl(s.jdbcUrl());
    this.lifecycle = new RelayLifecycle(s.relayId());
    this.store = new CdcStore(s.dataSource(), dialect);
    this.publisher = new RoundPublisher(s.transport(), s.publishTimeout());
    this.engine = new EngineRunner(s.relayId(), lifecycle::closing);
    this.metrics = new CdcMetrics(s.meters(), s.slotName(), engine::running);
    this.monitor =
        new SlotMonitor(
            s.dataSource(),
            dialect,
            s.slotName(),
            s.lagAlertBytes(),
            s.lagAlertAge(),
            s.meters(),
            held::size);
    this.settlement = new Settlement(s.relayId(), store, held, metrics, s.retryPolicy());
  }

  public static Builder builder() {
    return new Builder();
  }

  public String relayId() {
    return settings.relayId();
  }

  public String slotName() {
    return settings.slotName();
  }

  /** The settings the relay was built with. */
  public CdcRelaySettings settings() {
    return settings;
  }

  /**
   * Checks the setup, then starts the engine and waits until it streams.
   *
   * @throws CdcSetupException if the database is not set up for CDC (the message says what to do)
   * @throws TandemException if the engine does not start within the start timeout
   * @throws IllegalStateException if the relay was started or closed already
   */
  public synchronized void start() {
    lifecycle.moveTo(RelayLifecycle.State.STARTING);
    SetupCheck.Location location = verifySetup();
    // Rows not marked published when the relay starts (another relay's backlog, or acknowledged
    // but not marked before a crash) are the drain's: their aggregates wait for it.
    store.pendingAggregates().forEach(held::hold);
    store.registerRelay(settings.slotName(), settings.relayId(), RelayDataSource.host());
    contextId =
        new OffsetStoreContext(
                settings.dataSource(),
                dialect,
                settings.slotName(),
                settings.faults(),
                () -> store.relayFlushed(settings.slotName()))
            .register();
    RecordHandler handler =
        new RecordHandler(
            settings.relayId(),
            dialect,
            new ChangeRecords(EngineConfig.TOPIC_PREFIX, location.schema()),
            store,
            held,
            publisher,
            settlement,
            metrics,
            lifecycle::closing);
    engine.start(
        EngineConfig.of(settings, location, contextId, store.hasOffsets(settings.slotName())),
        handler,
        named("engine"));
    background = new RelayBackground(settings.relayId(), named("drain"));
    background.start(
        new Drain(settings.relayId(), store, held, publisher, settlement),
        settings.drainInterval(),
        monitor,
        store,
        settings.slotName(),
        metrics,
        settings.monitorInterval());
    awaitStreaming();
    log.info(
        "CDC relay {} streams {}.tandem_outbox from {} {} to {}",
        settings.relayId(),
        location.schema(),
        settings.mariaDb() ? "the binlog, position" : "slot",
        settings.slotName(),
        settings.transport().name());
  }

  private SetupCheck.Location verifySetup() {
    try {
      return StartupGate.verify(settings, dialect);
    } catch (RuntimeException e) {
      lifecycle.moveTo(RelayLifecycle.State.FAILED);
      throw e;
    }
  }

  private void awaitStreaming() {
    Optional<RuntimeException> refusal;
    try {
      refusal = StartupGate.awaitStreaming(settings, engine, monitor);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      refusal = Optional.of(new TandemException("interrupted while starting " + relayId(), e));
    }
    if (refusal.isPresent()) {
      lifecycle.moveIfAllowed(RelayLifecycle.State.FAILED);
      close();
      throw refusal.get();
    }
    lifecycle.moveIfAllowed(RelayLifecycle.State.STREAMING);
  }

  public boolean isRunning() {
    return engine.running();
  }

  /** Events the broker acknowledged since the start. */
  public long publishedCount() {
    return metrics.published();
  }

  public CdcRelayStatus status() {
    SlotMonitor.Look look = monitor.last();
    return new CdcRelayStatus(
        settings.slotName(),
        engine.running(),
        engine.failure().map(ErrorSummary::of),
        metrics.published(),
        metrics.lastPublishedAt(),
        metrics.lastHeartbeatAt(),
        held.size(),
        look.slotLagBytes(),
        look.oldestPendingAge(),
        look.lagging());
  }

  /** Waits until the engine stopped (closed or failed). */
  public boolean awaitStop(Duration timeout) throws InterruptedException {
    return engine.awaitStopped(timeout);
  }

  /**
   * Stops the engine (which flushes the acknowledged position), the drain and the monitor. Leaves
   * the slot: a stopped relay's slot holds WAL until it runs again, or until an operator drops it.
   * Idempotent.
   */
  @Override
  public synchronized void close() {
    if (!lifecycle.moveIfAllowed(RelayLifecycle.State.STOPPING)) {
      return; // stopped already
    }
    engine.close();
    if (background != null) {
      background.stop();
    }
    if (contextId != null) {
      OffsetStoreContext.unregister(contextId);
    }
    lifecycle.moveTo(RelayLifecycle.State.STOPPED);
  }

  private ThreadFactory named(String role) {
    return r -> {
      Thread t = settings.threadFactory().newThread(r);
      t.setName("tandem-cdc-" + settings.slotName() + "-" + role);
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Builds a {@link CdcRelay}; {@code jdbcUrl} and {@code transport} are required ({@link
   * CdcRelaySettingsBuilder} documents every setting and its default). Not thread-safe.
   */
  public static final class Builder extends CdcRelaySettingsBuilder<Builder> {
    private Builder() {}

    /**
     * @throws IllegalArgumentException naming the setting and its bad value
     */
    public CdcRelay build() {
      return new CdcRelay(settings());
    }
  }
}
