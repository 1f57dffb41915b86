package io.tandem.cdc;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.cdc.internal.Aggregate;
import io.tandem.cdc.internal.CdcDialect;
import io.tandem.cdc.internal.CdcStore;
import io.tandem.cdc.internal.ChangeRecords;
import io.tandem.cdc.internal.HeldAggregates;
import io.tandem.cdc.internal.JdbcOffsetBackingStore;
import io.tandem.cdc.internal.MariaDbConnectorConfig;
import io.tandem.cdc.internal.MariaDbSetupCheck;
import io.tandem.cdc.internal.OffsetStoreContext;
import io.tandem.cdc.internal.PostgresCdcDialect;
import io.tandem.cdc.internal.RoundPublisher;
import io.tandem.cdc.internal.SetupCheck;
import io.tandem.cdc.internal.SlotMonitor;
import io.tandem.cdc.internal.StreamedRows;
import io.tandem.core.ErrorClass;
import io.tandem.core.ErrorSummary;
import io.tandem.core.FaultInjector;
import io.tandem.core.PublishException;
import io.tandem.core.RetryPolicy;
import io.tandem.core.TandemException;
import io.tandem.core.spi.Transport;
import io.tandem.jdbc.JdbcException;
import io.tandem.outbox.OutboxRow;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.apache.kafka.connect.source.SourceRecord;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.Driver;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDC relay: Debezium's embedded engine reads the inserts into {@code tandem_outbox} from
 * PostgreSQL's WAL (logical decoding, pgoutput) and the relay publishes them through a {@link
 * Transport} — the same events, built by the same code ({@link OutboxRow}), as the polling {@link
 * io.tandem.outbox.OutboxRelay}, so consumers cannot tell which relay published.
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

  /** The prefix of Debezium's topic names; the relay publishes to its own transport only. */
  static final String TOPIC_PREFIX = "tandem";

  private static final Logger log = LoggerFactory.getLogger(CdcRelay.class);
  private static final int DRAIN_ROWS_PER_AGGREGATE = 100;
  private static final int DRAIN_AGGREGATES_PER_CYCLE = 500;

  private final String jdbcUrl;
  private final String user;
  private final String password;
  private final DataSource dataSource;
  private final Transport transport;
  private final String relayId;
  private final String slotName;
  private final String publicationName;
  private final boolean createPublication;
  private final Duration heartbeatInterval;
  private final Duration offsetFlushInterval;
  private final Duration drainInterval;
  private final Duration monitorInterval;
  private final Duration startTimeout;
  private final RetryPolicy retryPolicy;
  private final FaultInjector faults;
  private final MeterRegistry meters;
  private final ThreadFactory threadFactory;
  private final Map<String, String> engineProperties;
  private final CdcDialect dialect;
  private final long serverId;
  private final Path schemaHistoryDirectory;

  private final CdcStore store;
  private final HeldAggregates held = new HeldAggregates();
  private final RoundPublisher publisher;
  private final SlotMonitor monitor;
  private final Counter publishedCounter;
  private final Counter heartbeatCounter;
  private final Counter notInTableCounter;
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong publishedSinceBeat = new AtomicLong();
  private final AtomicReference<Instant> lastPublishedAt = new AtomicReference<>();
  private final AtomicReference<Instant> lastHeartbeatAt = new AtomicReference<>();
  private final AtomicReference<Throwable> engineFailure = new AtomicReference<>();
  private final CountDownLatch engineStarted = new CountDownLatch(1);
  private final CountDownLatch engineStopped = new CountDownLatch(1);

  private volatile boolean closing;
  private volatile boolean streamReached;
  private volatile boolean running;
  private DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private ExecutorService engineExecutor;
  private ScheduledExecutorService scheduler;
  private String contextId;
  private ChangeRecords changes;

  private CdcRelay(Builder b) {
    this.jdbcUrl = b.jdbcUrl;
    this.dialect = CdcDialect.ofUrl(b.jdbcUrl);
    this.serverId =
        b.serverId != null ? b.serverId : MariaDbConnectorConfig.defaultServerId(b.slotName);
    this.schemaHistoryDirectory = b.schemaHistoryDirectory;
    this.user = b.user;
    this.password = b.password;
    this.dataSource = b.dataSource != null ? b.dataSource : dataSourceOf(b);
    this.transport = b.transport;
    this.relayId = b.relayId != null ? b.relayId : defaultRelayId();
    this.slotName = b.slotName;
    this.publicationName = b.publicationName != null ? b.publicationName : b.slotName;
    this.createPublication = b.createPublication;
    this.heartbeatInterval = b.heartbeatInterval;
    this.offsetFlushInterval = b.offsetFlushInterval;
    this.drainInterval = b.drainInterval;
    this.monitorInterval = b.monitorInterval;
    this.startTimeout = b.startTimeout;
    this.retryPolicy = b.retryPolicy;
    this.faults = b.faults;
    this.meters = b.meters;
    this.threadFactory = b.threadFactory;
    this.engineProperties = Map.copyOf(b.engineProperties);
    this.store = new CdcStore(dataSource, dialect);
    this.publisher = new RoundPublisher(transport, b.publishTimeout);
    this.monitor =
        new SlotMonitor(
            dataSource, dialect, slotName, b.lagAlertBytes, b.lagAlertAge, meters, held::size);
    this.publishedCounter =
        Counter.builder("tandem.cdc.published")
            .description("events the broker acknowledged")
            .tag("slot", slotName)
            .register(meters);
    this.heartbeatCounter =
        Counter.builder("tandem.cdc.heartbeats")
            .description("heartbeats the change stream carried")
            .tag("slot", slotName)
            .register(meters);
    this.notInTableCounter =
        Counter.builder("tandem.cdc.not.in.table")
            .description(
                "streamed outbox rows the table lacks (rolled-back XA branches), not published")
            .tag("slot", slotName)
            .register(meters);
    Gauge.builder(
            "tandem.cdc.last.published.timestamp",
            lastPublishedAt,
            r -> r.get() == null ? Double.NaN : r.get().toEpochMilli() / 1000.0)
        .description("when the broker last acknowledged an event (epoch seconds)")
        .baseUnit("seconds")
        .tag("slot", slotName)
        .register(meters);
    Gauge.builder("tandem.cdc.running", () -> running ? 1 : 0)
        .description("1 while the engine runs")
        .tag("slot", slotName)
        .register(meters);
  }

  public static Builder builder() {
    return new Builder();
  }

  public String relayId() {
    return relayId;
  }

  public String slotName() {
    return slotName;
  }

  /**
   * Checks the setup, then starts the engine and waits until it streams.
   *
   * @throws CdcSetupException if the database is not set up for CDC (the message says what to do)
   * @throws TandemException if the engine does not start within the start timeout
   */
  public synchronized void start() {
    if (engine != null) {
      throw new IllegalStateException("CDC relay " + relayId + " was started already");
    }
    SetupCheck.Location location;
    try (Connection c = dataSource.getConnection()) {
      location =
          dialect.replicationSlots()
              ? SetupCheck.verify(c, slotName, publicationName, createPublication)
              : MariaDbSetupCheck.verify(c);
    } catch (SQLException e) {
      throw new JdbcException("checking the database's setup for the CDC relay failed", e);
    }
    changes = new ChangeRecords(TOPIC_PREFIX, location.schema());
    // Rows not marked published when the relay starts (another relay's backlog, or acknowledged
    // but not marked before a crash) are the drain's: their aggregates wait for it.
    store.pendingAggregates().forEach(held::hold);
    store.registerRelay(slotName, relayId, host());
    contextId =
        new OffsetStoreContext(
                dataSource, dialect, slotName, faults, () -> store.relayFlushed(slotName))
            .register();
    engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(engineConfig(location))
            .using(
                new DebeziumEngine.ConnectorCallback() {
                  @Override
                  public void taskStarted() {
                    running = true;
                    engineStarted.countDown();
                  }
                })
            .using(
                (success, message, error) -> {
                  running = false;
                  if (!success && !closing) {
                    engineFailure.set(error != null ? error : new TandemException(message));
                    log.error("CDC relay {} stopped: {}", relayId, message, error);
                  }
                  engineStarted.countDown();
                  engineStopped.countDown();
                })
            .notifying(this::handleBatch)
            .build();
    engineExecutor = Executors.newSingleThreadExecutor(named("engine"));
    engineExecutor.execute(engine);
    scheduler = Executors.newSingleThreadScheduledExecutor(named("drain"));
    scheduler.scheduleWithFixedDelay(
        () -> guarded("drain", this::drain),
        drainInterval.toMillis(),
        drainInterval.toMillis(),
        TimeUnit.MILLISECONDS);
    scheduler.scheduleWithFixedDelay(
        () -> guarded("monitor", this::monitorAndBeat),
        0,
        monitorInterval.toMillis(),
        TimeUnit.MILLISECONDS);
    try {
      if (!engineStarted.await(startTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        close();
        throw new TandemException(
            "CDC relay "
                + relayId
                + " did not start streaming from slot '"
                + slotName
                + "' within "
                + startTimeout
                + "; see the log for Debezium's messages");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      throw new TandemException("interrupted while starting CDC relay " + relayId, e);
    }
    Throwable failure = engineFailure.get();
    if (failure == null && !awaitSlotActive()) {
      failure = engineFailure.get();
      if (failure == null) {
        close();
        throw new TandemException(
            "CDC relay "
                + relayId
                + " started its engine, but no client streams from slot '"
                + slotName
                + "' after "
                + startTimeout
                + "; see the log for Debezium's messages");
      }
    }
    if (failure != null) {
      close();
      throw new CdcSetupException(
          "CDC relay " + relayId + " could not start: " + ErrorSummary.of(failure), failure);
    }
    log.info(
        "CDC relay {} streams {}.tandem_outbox from slot {} (publication {}) to {}",
        relayId,
        location.schema(),
        slotName,
        publicationName,
        transport.name());
  }

  /** Waits until the slot exists and a client streams from it (the engine's task starts first). */
  private boolean awaitSlotActive() {
    long deadline = System.nanoTime() + startTimeout.toNanos();
    while (System.nanoTime() < deadline && engineFailure.get() == null) {
      if (monitor.slotActive()) {
        return true;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  private Properties engineConfig(SetupCheck.Location location) {
    if (!dialect.replicationSlots()) {
      return mariaDbEngineConfig(location);
    }
    Properties url = Driver.parseURL(jdbcUrl, null);
    if (url == null) {
      throw new IllegalArgumentException("jdbcUrl is not a PostgreSQL JDBC URL");
    }
    Properties p = new Properties();
    p.setProperty("name", "tandem-cdc-" + slotName);
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.setProperty("offset.storage", JdbcOffsetBackingStore.class.getName());
    p.setProperty(JdbcOffsetBackingStore.CONTEXT, contextId);
    p.setProperty("offset.flush.interval.ms", Long.toString(offsetFlushInterval.toMillis()));
    // Debezium 3.5 on Kafka 4.2+ builds a WorkerConfig that requires it; nothing connects to it.
    p.setProperty("bootstrap.servers", "127.0.0.1:9");
    p.setProperty("database.hostname", url.getProperty("PGHOST", "localhost").split(",")[0]);
    p.setProperty("database.port", url.getProperty("PGPORT", "5432").split(",")[0]);
    p.setProperty("database.dbname", location.database());
    p.setProperty(
        "database.user",
        user != null ? user : url.getProperty("user", System.getProperty("user.name")));
    String secret = password != null ? password : url.getProperty("password");
    if (secret != null) {
      p.setProperty("database.password", secret);
    }
    if (url.getProperty("sslmode") != null) {
      p.setProperty("database.sslmode", url.getProperty("sslmode"));
    }
    p.setProperty("topic.prefix", TOPIC_PREFIX);
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", slotName);
    p.setProperty("publication.name", publicationName);
    p.setProperty("publication.autocreate.mode", "disabled");
    p.setProperty(
        "table.include.list",
        location.schema() + ".tandem_outbox," + location.schema() + ".tandem_cdc_heartbeat");
    p.setProperty("snapshot.mode", "no_data");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("heartbeat.interval.ms", Long.toString(heartbeatInterval.toMillis()));
    p.setProperty(
        "heartbeat.action.query", PostgresCdcDialect.heartbeatQuery(location.schema(), slotName));
    p.setProperty("poll.interval.ms", POLL_INTERVAL_MS);
    engineProperties.forEach(p::setProperty);
    return p;
  }

  private Properties mariaDbEngineConfig(SetupCheck.Location location) {
    Path history = schemaHistoryDirectory.resolve(slotName + ".history");
    try {
      java.nio.file.Files.createDirectories(schemaHistoryDirectory);
    } catch (IOException e) {
      throw new CdcSetupException(
          "cannot create the schema history directory "
              + schemaHistoryDirectory
              + " ("
              + e.getMessage()
              + "): choose a writable one (schemaHistoryDirectory)",
          e);
    }
    Properties p =
        MariaDbConnectorConfig.of(
            jdbcUrl,
            user,
            password,
            location.database(),
            slotName,
            serverId,
            history,
            store.hasOffsets(slotName));
    p.setProperty("name", "tandem-cdc-" + slotName);
    p.setProperty("offset.storage", JdbcOffsetBackingStore.class.getName());
    p.setProperty(JdbcOffsetBackingStore.CONTEXT, contextId);
    p.setProperty("offset.flush.interval.ms", Long.toString(offsetFlushInterval.toMillis()));
    // Debezium 3.5 on Kafka 4.2+ builds a WorkerConfig that requires it; nothing connects to it.
    p.setProperty("bootstrap.servers", "127.0.0.1:9");
    p.setProperty("topic.prefix", TOPIC_PREFIX);
    p.setProperty("tombstones.on.delete", "false");
    // No slot holds the binlog back: heartbeats only move the stored position on an idle outbox.
    p.setProperty("heartbeat.interval.ms", Long.toString(heartbeatInterval.toMillis()));
    p.setProperty("poll.interval.ms", POLL_INTERVAL_MS);
    engineProperties.forEach(p::setProperty);
    return p;
  }

  /**
   * How long the connector waits for more changes before it hands a batch over: 50 ms, not
   * Debezium's 500 ms, which put half a second on every event at low load (measured with {@code
   * tandem bench relay --mode cdc}: p50 530 ms at 500 events/s). An {@code engineProperty}
   * overrides it.
   */
  private static final String POLL_INTERVAL_MS = "50";

  // ---- the stream -------------------------------------------------------------------------------

  private void handleBatch(
      List<RecordChangeEvent<SourceRecord>> records,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    if (!streamReached) {
      // The stream's first batch: the engine's start position is fixed now. A row committed after
      // start() looked for pending rows but before that position is in neither; holding every
      // aggregate with pending rows again hands such rows to the drain.
      store.pendingAggregates().forEach(held::hold);
      streamReached = true;
    }
    List<RoundPublisher.Item> items = new ArrayList<>();
    for (RecordChangeEvent<SourceRecord> change : records) {
      SourceRecord record = change.record();
      switch (changes.kind(record)) {
        case HEARTBEAT -> {
          heartbeatCounter.increment();
          lastHeartbeatAt.set(Instant.now());
        }
        case OUTBOX_INSERT -> {
          OutboxRow row = ChangeRecords.outboxRow(record);
          Aggregate aggregate = new Aggregate(row.aggregateType(), row.aggregateId());
          if (held.leaveBehind(aggregate)) {
            continue; // an earlier version waits in the database: the drain publishes this one
          }
          try {
            items.add(new RoundPublisher.Item(row.rowId(), aggregate, row.toEvent(), 1));
          } catch (RuntimeException e) {
            quarantineUndecodable(row, aggregate, e);
          }
        }
        case OTHER -> {
          // nothing to publish
        }
      }
    }
    if (!items.isEmpty()) {
      items = stillToPublish(items);
      if (items == null) {
        return; // closing while the database did not answer: nothing is marked processed
      }
    }
    if (!items.isEmpty() && !publishUntilSettled(items)) {
      return; // closing while the broker was down: nothing is marked processed
    }
    for (RecordChangeEvent<SourceRecord> change : records) {
      committer.markProcessed(change);
    }
    committer.markBatchFinished();
  }

  /**
   * The items to publish ({@link StreamedRows}), or null if the relay closed while the database
   * could not answer. On MariaDB a row the stream carries but the table lacks was never committed:
   * MariaDB writes an XA branch's rows to the binlog at XA PREPARE, and Debezium relays them then,
   * even if XA ROLLBACK follows (the read waits for a prepared branch's outcome); it is not
   * published. On PostgreSQL the stream holds committed transactions only, and such a row is a
   * commit the read's snapshot does not show yet: it is published. A row already marked published
   * (the drain published it, and a restart streams it again) is not published twice.
   */
  private List<RoundPublisher.Item> stillToPublish(List<RoundPublisher.Item> items)
      throws InterruptedException {
    List<Long> ids = items.stream().map(RoundPublisher.Item::rowId).toList();
    Map<Long, Boolean> rows;
    int failures = 0;
    while (true) {
      try {
        rows = store.rowsOfStream(ids);
        break;
      } catch (JdbcException e) {
        failures++;
        if (failures == 1 || failures % 10 == 0) {
          log.warn(
              "CDC relay {}: cannot read which of {} streamed rows the table holds (attempt {}),"
                  + " retrying: {}",
              relayId,
              ids.size(),
              failures,
              ErrorSummary.of(e));
        }
        if (!pause(Math.min(5000, 100L << Math.min(failures, 6)))) {
          return null;
        }
      }
    }
    return StreamedRows.stillToPublish(
        items,
        rows,
        dialect.streamsOnlyCommitted(),
        item -> {
          notInTableCounter.increment();
          log.warn(
              "CDC relay {}: outbox row {} ({}) is in the change stream but not in the table: its"
                  + " transaction never committed (an XA branch prepared, then rolled back), or"
                  + " retention deleted it after it was published; not publishing it",
              relayId,
              item.rowId(),
              item.event());
        });
  }

  /** Sleeps; false if the relay began closing meanwhile. */
  private boolean pause(long millis) throws InterruptedException {
    long until = System.currentTimeMillis() + millis;
    while (System.currentTimeMillis() < until) {
      if (closing) {
        return false;
      }
      Thread.sleep(Math.min(100, millis));
    }
    return !closing;
  }

  /**
   * Publishes {@code items}; returns false only if the relay closed while none could be published.
   */
  private boolean publishUntilSettled(List<RoundPublisher.Item> items) throws InterruptedException {
    int outage = 0;
    while (true) {
      RoundPublisher.Result result = publisher.publish(items);
      boolean allRetriable = result.failed().stream().allMatch(f -> f.error().retriable());
      if (result.everythingFailed() && allRetriable) {
        // The broker took none: an outage holds the whole stream, and the position stays.
        outage++;
        if (outage == 1 || outage % 10 == 0) {
          log.warn(
              "CDC relay {}: the broker acknowledged none of {} events (attempt {}), retrying: {}",
              relayId,
              items.size(),
              outage,
              result.failed().get(0).error().getMessage());
        }
        long waitMillis = Math.min(5000, 100L << Math.min(outage, 6));
        long until = System.currentTimeMillis() + waitMillis;
        while (System.currentTimeMillis() < until) {
          if (closing) {
            return false;
          }
          Thread.sleep(Math.min(100, waitMillis));
        }
        continue;
      }
      settle(result);
      return true;
    }
  }

  private void settle(RoundPublisher.Result result) {
    List<Long> acknowledged = result.acknowledged().stream().map(i -> i.rowId()).toList();
    if (!acknowledged.isEmpty()) {
      try {
        store.markPublished(relayId, acknowledged);
      } catch (JdbcException e) {
        // Published but not marked: the drain publishes them again and marks them.
        Set<Aggregate> aggregates = new HashSet<>();
        result.acknowledged().forEach(i -> aggregates.add(i.aggregate()));
        aggregates.forEach(held::hold);
        log.warn(
            "CDC relay {}: marking {} acknowledged rows failed; the drain publishes them again: {}",
            relayId,
            acknowledged.size(),
            ErrorSummary.of(e));
      }
      published.addAndGet(acknowledged.size());
      publishedSinceBeat.addAndGet(acknowledged.size());
      publishedCounter.increment(acknowledged.size());
      lastPublishedAt.set(Instant.now());
    }
    for (RoundPublisher.Failed failed : result.failed()) {
      recordFailure(failed);
    }
  }

  private void recordFailure(RoundPublisher.Failed failed) {
    RoundPublisher.Item item = failed.item();
    PublishException error = failed.error();
    boolean quarantine = !error.retriable() || !retryPolicy.mayRetry(item.attempt());
    meters
        .counter("tandem.cdc.failures", "slot", slotName, "error_class", error.errorClass().name())
        .increment();
    held.hold(item.aggregate());
    try {
      if (quarantine) {
        store.quarantine(item.rowId(), error.errorClass(), error.getMessage());
        log.error(
            "CDC relay {}: quarantining {} after attempt {} ({}); later events of {}/{} wait for"
                + " an operator (tandem outbox replay or skip): {}",
            relayId,
            item.event(),
            item.attempt(),
            error.errorClass(),
            item.aggregate().type(),
            item.aggregate().id(),
            error.getMessage());
      } else {
        Duration delay = retryPolicy.delayAfter(item.attempt());
        store.retryLater(item.rowId(), delay, error.errorClass(), error.getMessage());
        log.warn(
            "CDC relay {}: attempt {} of {} failed ({}), retry in {} ms: {}",
            relayId,
            item.attempt(),
            item.event(),
            error.errorClass(),
            delay.toMillis(),
            error.getMessage());
      }
    } catch (JdbcException e) {
      // The row stays pending without the failure noted; the drain retries it at once.
      log.warn("CDC relay {}: {}", relayId, ErrorSummary.of(e));
    }
  }

  private void quarantineUndecodable(OutboxRow row, Aggregate aggregate, RuntimeException e) {
    held.hold(aggregate);
    String reason = OutboxRow.undecodableReason(e);
    log.error(
        "CDC relay {}: outbox row {} is not a valid event, quarantined: {}",
        relayId,
        row.rowId(),
        reason);
    try {
      store.quarantine(row.rowId(), ErrorClass.INVALID_EVENT, reason);
    } catch (JdbcException failure) {
      log.warn("CDC relay {}: {}", relayId, ErrorSummary.of(failure));
    }
  }

  // ---- the drain: rows the stream left in the database ------------------------------------------

  private void drain() {
    List<Aggregate> aggregates = held.snapshot();
    if (aggregates.isEmpty()) {
      return;
    }
    List<RoundPublisher.Item> items = new ArrayList<>();
    Map<Aggregate, Long> generations = new LinkedHashMap<>();
    for (Aggregate aggregate :
        aggregates.subList(0, Math.min(aggregates.size(), DRAIN_AGGREGATES_PER_CYCLE))) {
      long generation = held.generation(aggregate);
      List<CdcStore.PendingRow> rows = store.pendingRows(aggregate, DRAIN_ROWS_PER_AGGREGATE);
      if (rows.isEmpty()) {
        generations.put(aggregate, generation);
        continue;
      }
      for (CdcStore.PendingRow pending : rows) {
        if (pending.quarantined() || pending.waiting()) {
          break;
        }
        OutboxRow row = pending.row();
        try {
          items.add(
              new RoundPublisher.Item(
                  row.rowId(), aggregate, row.toEvent(), pending.attempts() + 1));
        } catch (RuntimeException e) {
          quarantineUndecodable(row, aggregate, e);
          break;
        }
      }
    }
    generations.forEach(
        (aggregate, generation) -> {
          if (held.releaseIf(aggregate, generation)) {
            log.debug("CDC relay {}: {} is published up to date again", relayId, aggregate);
          }
        });
    if (!items.isEmpty()) {
      settle(publisher.publish(items));
    }
  }

  private void monitorAndBeat() {
    monitor.look();
    store.relayHeartbeat(slotName, publishedSinceBeat.getAndSet(0), lastPublishedAt.get());
  }

  private void guarded(String task, Runnable work) {
    try {
      work.run();
    } catch (RuntimeException e) {
      log.warn(
          "CDC relay {}: {} failed, trying again later: {}", relayId, task, ErrorSummary.of(e));
    }
  }

  // ---- state
  // -------------------------------------------------------------------------------------

  public boolean isRunning() {
    return running;
  }

  /** Events the broker acknowledged since the start. */
  public long publishedCount() {
    return published.get();
  }

  public CdcRelayStatus status() {
    Throwable failure = engineFailure.get();
    SlotMonitor.Look look = monitor.last();
    return new CdcRelayStatus(
        slotName,
        running,
        Optional.ofNullable(failure).map(ErrorSummary::of),
        published.get(),
        Optional.ofNullable(lastPublishedAt.get()),
        Optional.ofNullable(lastHeartbeatAt.get()),
        held.size(),
        look.slotLagBytes(),
        look.oldestPendingAge(),
        look.lagging());
  }

  /** Waits until the engine stopped (closed or failed). */
  public boolean awaitStop(Duration timeout) throws InterruptedException {
    return engineStopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Stops the engine (which flushes the acknowledged position), the drain and the monitor. Leaves
   * the slot: a stopped relay's slot holds WAL until it runs again, or until an operator drops it.
   */
  @Override
  public synchronized void close() {
    closing = true;
    if (engine != null) {
      try {
        engine.close();
      } catch (IOException e) {
        log.warn("CDC relay {}: closing the engine failed: {}", relayId, ErrorSummary.of(e));
      }
    }
    // the engine's own thread ends once it flushed its last position: let it, do not interrupt it
    shutdown(engineExecutor, false);
    shutdown(scheduler, true);
    if (contextId != null) {
      OffsetStoreContext.unregister(contextId);
    }
    running = false;
  }

  private static void shutdown(ExecutorService executor, boolean interrupt) {
    if (executor == null) {
      return;
    }
    if (interrupt) {
      executor.shutdownNow();
    } else {
      executor.shutdown();
    }
    try {
      executor.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private ThreadFactory named(String role) {
    return r -> {
      Thread t = threadFactory.newThread(r);
      t.setName("tandem-cdc-" + slotName + "-" + role);
      t.setDaemon(true);
      return t;
    };
  }

  private static DataSource dataSourceOf(Builder b) {
    if (b.jdbcUrl.startsWith("jdbc:mariadb:")) {
      try {
        MariaDbDataSource ds = new MariaDbDataSource(b.jdbcUrl);
        if (b.user != null) {
          ds.setUser(b.user);
        }
        if (b.password != null) {
          ds.setPassword(b.password);
        }
        return ds;
      } catch (SQLException e) {
        throw new IllegalArgumentException("jdbcUrl is not a valid MariaDB URL: " + e.getMessage());
      }
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(b.jdbcUrl);
    if (b.user != null) {
      ds.setUser(b.user);
    }
    if (b.password != null) {
      ds.setPassword(b.password);
    }
    return ds;
  }

  private static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String defaultRelayId() {
    return "cdc-" + host() + "-" + ProcessHandle.current().pid();
  }

  /** Builds a {@link CdcRelay}; {@link #jdbcUrl} and {@link #transport} are required. */
  public static final class Builder {
    private String jdbcUrl;
    private String user;
    private String password;
    private DataSource dataSource;
    private Transport transport;
    private String relayId;
    private String slotName = DEFAULT_SLOT_NAME;
    private String publicationName;
    private boolean createPublication = true;
    private Duration heartbeatInterval = Duration.ofSeconds(DEFAULT_HEARTBEAT_SECONDS);
    private Duration offsetFlushInterval = Duration.ofMillis(DEFAULT_OFFSET_FLUSH_MILLIS);
    private Duration publishTimeout = Duration.ofSeconds(DEFAULT_PUBLISH_TIMEOUT_SECONDS);
    private Duration drainInterval = Duration.ofMillis(DEFAULT_DRAIN_INTERVAL_MILLIS);
    private Duration monitorInterval = Duration.ofSeconds(DEFAULT_MONITOR_SECONDS);
    private Duration startTimeout = Duration.ofSeconds(DEFAULT_START_TIMEOUT_SECONDS);
    private long lagAlertBytes = DEFAULT_LAG_ALERT_BYTES;
    private Duration lagAlertAge = Duration.ofSeconds(DEFAULT_LAG_ALERT_SECONDS);
    private RetryPolicy retryPolicy = RetryPolicy.DEFAULTS;
    private FaultInjector faults = FaultInjector.NONE;
    private MeterRegistry meters = new SimpleMeterRegistry();
    private ThreadFactory threadFactory = Executors.defaultThreadFactory();
    private final Map<String, String> engineProperties = new LinkedHashMap<>();
    private Long serverId;
    private Path schemaHistoryDirectory =
        Paths.get(System.getProperty("java.io.tmpdir"), "tandem-cdc-schema-history");

    private Builder() {}

    /**
     * MariaDB only: the replica server id the relay reads the binlog as, unique among the server's
     * replicas; default derived from the slot name (65536 and up).
     */
    public Builder serverId(long serverId) {
      if (serverId < 1 || serverId > 4_294_967_295L) {
        throw new IllegalArgumentException(
            "serverId must be 1..4294967295 (a MariaDB server_id), but was " + serverId);
      }
      this.serverId = serverId;
      return this;
    }

    /**
     * MariaDB only: where the connector's schema history file ({@code <slot>.history}) lives;
     * default {@code <java.io.tmpdir>/tandem-cdc-schema-history}. Losing it is harmless: the relay
     * rebuilds it from the tables' definitions (docs/cdc.md).
     */
    public Builder schemaHistoryDirectory(Path schemaHistoryDirectory) {
      this.schemaHistoryDirectory = Objects.requireNonNull(schemaHistoryDirectory);
      return this;
    }

    /**
     * The PostgreSQL JDBC URL; Debezium opens its replication connection with its host, port, user
     * and password (the user needs REPLICATION).
     */
    public Builder jdbcUrl(String jdbcUrl) {
      this.jdbcUrl = jdbcUrl;
      return this;
    }

    /** The database user, if not in the URL. */
    public Builder user(String user) {
      this.user = user;
      return this;
    }

    /** The password, if not in the URL; never logged. */
    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /** The relay's own statements (marks, offsets); default: a plain data source of the URL. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    public Builder transport(Transport transport) {
      this.transport = transport;
      return this;
    }

    /** Written to {@code published_by}; default {@code cdc-<host>-<pid>}. */
    public Builder relayId(String relayId) {
      this.relayId = relayId;
      return this;
    }

    /** The replication slot, also the name of the stored position; default tandem_cdc. */
    public Builder slotName(String slotName) {
      this.slotName = slotName;
      return this;
    }

    /** The publication; default the slot's name. */
    public Builder publicationName(String publicationName) {
      this.publicationName = publicationName;
      return this;
    }

    /** Whether start creates a missing publication (needs the outbox's owner); default true. */
    public Builder createPublication(boolean createPublication) {
      this.createPublication = createPublication;
      return this;
    }

    public Builder heartbeatInterval(Duration heartbeatInterval) {
      this.heartbeatInterval = heartbeatInterval;
      return this;
    }

    /** How often the acknowledged position is stored; default 1 s. */
    public Builder offsetFlushInterval(Duration offsetFlushInterval) {
      this.offsetFlushInterval = offsetFlushInterval;
      return this;
    }

    public Builder publishTimeout(Duration publishTimeout) {
      this.publishTimeout = publishTimeout;
      return this;
    }

    /** How often rows left in the database (retries, start backlog) are looked at; default 1 s. */
    public Builder drainInterval(Duration drainInterval) {
      this.drainInterval = drainInterval;
      return this;
    }

    /** How often slot lag and backlog are measured; default 10 s. */
    public Builder monitorInterval(Duration monitorInterval) {
      this.monitorInterval = monitorInterval;
      return this;
    }

    public Builder startTimeout(Duration startTimeout) {
      this.startTimeout = startTimeout;
      return this;
    }

    /** Slot lag (bytes of WAL held) above which the relay reports lagging. */
    public Builder lagAlertBytes(long lagAlertBytes) {
      this.lagAlertBytes = lagAlertBytes;
      return this;
    }

    /** Age of the oldest unpublished row above which the relay reports lagging. */
    public Builder lagAlertAge(Duration lagAlertAge) {
      this.lagAlertAge = lagAlertAge;
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

    public Builder meterRegistry(MeterRegistry meters) {
      this.meters = meters;
      return this;
    }

    public Builder threadFactory(ThreadFactory threadFactory) {
      this.threadFactory = threadFactory;
      return this;
    }

    /**
     * A Debezium connector setting passed as is (e.g. {@code max.batch.size}); the relay's own
     * settings above are the supported ones.
     */
    public Builder engineProperty(String name, String value) {
      engineProperties.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value));
      return this;
    }

    public CdcRelay build() {
      if (jdbcUrl == null
          || !(jdbcUrl.startsWith("jdbc:postgresql:") || jdbcUrl.startsWith("jdbc:mariadb:"))) {
        throw new IllegalArgumentException(
            "jdbcUrl must be a jdbc:postgresql: URL (the CDC relay reads PostgreSQL's WAL) or a"
                + " jdbc:mariadb: URL (MariaDB's binlog), but was "
                + (jdbcUrl == null
                    ? "null"
                    : "'" + jdbcUrl.replaceAll("password=[^&]*", "password=***") + "'"));
      }
      Objects.requireNonNull(transport, "transport");
      PostgresCdcDialect.identifier("slotName", slotName);
      if (publicationName != null) {
        PostgresCdcDialect.identifier("publicationName", publicationName);
      }
      positive("heartbeatInterval", heartbeatInterval);
      positive("offsetFlushInterval", offsetFlushInterval);
      positive("publishTimeout", publishTimeout);
      positive("drainInterval", drainInterval);
      positive("monitorInterval", monitorInterval);
      positive("startTimeout", startTimeout);
      positive("lagAlertAge", lagAlertAge);
      if (lagAlertBytes <= 0) {
        throw new IllegalArgumentException("lagAlertBytes must be > 0, but was " + lagAlertBytes);
      }
      Objects.requireNonNull(retryPolicy, "retryPolicy");
      Objects.requireNonNull(faults, "faultInjector");
      Objects.requireNonNull(meters, "meterRegistry");
      Objects.requireNonNull(threadFactory, "threadFactory");
      return new CdcRelay(this);
    }

    private static void positive(String name, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be a positive duration, but was " + value);
      }
    }
  }
}
