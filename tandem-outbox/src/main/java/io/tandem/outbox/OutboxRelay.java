package io.tandem.outbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.ErrorSummary;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.PublishException;
import io.tandem.core.RetryPolicy;
import io.tandem.core.Tracing;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.core.spi.TransportReplies;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.InsertNotifications;
import io.tandem.outbox.internal.ClaimedBatch;
import io.tandem.outbox.internal.ClaimedEvent;
import io.tandem.outbox.internal.OutboxStore;
import io.tandem.outbox.internal.OwnedPartitions;
import io.tandem.outbox.internal.PartitionLeases;
import io.tandem.outbox.internal.RelayHealth;
import io.tandem.outbox.internal.RetryLooks;
import io.tandem.outbox.internal.UndecodableRows;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  private final Tracing tracing = Tracing.get();
  private final DataSource dataSource;
  private final Dialect dialect;
  private final OutboxStore store;
  private final PartitionLeases leases;
  private final Transport transport;
  private final int batchSize;
  private final Duration lease;
  private final Duration heartbeat;
  private final Duration publishTimeout;
  private final Duration pollInterval;
  private final Duration lingerWhenBusy;
  private final boolean listen;
  private final RetryPolicy retryPolicy;
  private final FaultInjector faults;
  private final ThreadFactory threadFactory;

  private final MeterRegistry meters;
  private final RelayHealth health;
  private final UndecodableRows undecodableRows;
  private final Counter publishedCounter;
  private final Timer batchTimer;
  private final Timer publishLatency;
  private final Counter attempts;
  private final Counter leaseRenewals;
  private final Counter leaseAcquisitions;
  private final Counter leaseExpiries;
  private OwnedPartitions lapseCounted; // the holding whose lapse was counted (worker thread)
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private boolean wakeRequested;
  private volatile State state = State.NEW;
  private volatile String lastError;
  private volatile long lastRenewalNanos;
  private long nextCoordinationNanos = System.nanoTime();
  private Thread worker;
  private volatile InsertNotifications listener;
  // Consecutive caught-up cycles that published something; from BUSY_CYCLES on, the relay looks
  // again at once after each and the insert notifications are switched off (worker thread only).
  private static final int BUSY_CYCLES = 8;
  private int busyCycles;
  // After notifications come back on: one look LATE_LOOK later, for a row whose insert ran while
  // writers skipped the notification and whose commit came after the last read.
  private static final Duration LATE_LOOK = Duration.ofMillis(100);
  private long lateLookNanos; // 0: none due
  // When each recorded retry falls due: an idle relay looks then, without waiting for its fallback
  // poll (written by whichever thread records).
  private final RetryLooks retryLooks = new RetryLooks();
  private int lastAcknowledged; // of the last caught-up batch (worker thread only)

  // Pipeline state, used by whichever thread runs cycles (the worker, or runOnce's caller).
  private static final int PIPELINE_DEPTH = 2;
  private final ExecutorService pipeline;
  private final ArrayDeque<Future<?>> inFlight = new ArrayDeque<>();
  // Caught-up batches: acknowledged rows whose mark the recorder thread has not committed yet (the
  // worker leaves them out of its reads until then), and the marks queued or running.
  private static final int RECORDS_QUEUED = 4;
  private final ExecutorService recorder;
  private final ArrayDeque<PendingRecord> recording = new ArrayDeque<>();
  private final Set<Long> unrecorded = new HashSet<>();
  private long cursor;
  private volatile FaultInjector.SimulatedCrash crashed;

  private OutboxRelay(Builder b) {
    this.relayId = b.relayId;
    this.dataSource = b.dataSource;
    this.dialect = b.dialect;
    this.store = new OutboxStore(b.dataSource, b.dialect);
    this.leases = new PartitionLeases(b.dataSource, b.dialect, b.relayId, hostName(), b.lease);
    this.transport = b.transport;
    this.batchSize = b.batchSize;
    this.lease = b.lease;
    this.heartbeat = b.heartbeat;
    this.publishTimeout = b.publishTimeout;
    this.pollInterval = b.pollInterval;
    this.lingerWhenBusy = b.lingerWhenBusy;
    this.listen = b.listen;
    this.retryPolicy = b.retryPolicy;
    this.faults = b.faults;
    this.threadFactory = b.threadFactory;
    this.meters = b.meters;
    this.health = new RelayHealth(b.relayId, b.unhealthyAfter, b.meters);
    this.undecodableRows = new UndecodableRows(store, b.relayId, b.meters);
    this.publishedCounter =
        Counter.builder("tandem.relay.published")
            .description("Events acknowledged by the broker and marked published")
            .tag("transport", transport.name())
            .register(meters);
    this.batchTimer =
        Timer.builder("tandem.relay.batch")
            .description("Read, publish and record of one batch")
            .tag("transport", transport.name())
            .register(meters);
    this.publishLatency =
        Timer.builder("tandem.relay.publish.latency")
            .description(
                "From an event's occurred_at (set as it is appended, before its commit) to the"
                    + " broker's acknowledgement")
            .tag("transport", transport.name())
            .publishPercentileHistogram()
            .register(meters);
    this.attempts =
        Counter.builder("tandem.relay.attempts")
            .description("Events handed to the broker, retries included")
            .tag("transport", transport.name())
            .register(meters);
    this.leaseRenewals =
        Counter.builder("tandem.relay.lease.renewals")
            .description("Partition leases this relay renewed before they ran out")
            .tag("relay", relayId)
            .register(meters);
    this.leaseAcquisitions =
        Counter.builder("tandem.relay.lease.acquisitions")
            .description("Partitions this relay took (free, expired or given back)")
            .tag("relay", relayId)
            .register(meters);
    this.leaseExpiries =
        Counter.builder("tandem.relay.lease.expiries")
            .description("Partition leases of this relay that ran out before it renewed them")
            .tag("relay", relayId)
            .register(meters);
    this.pipeline =
        Executors.newFixedThreadPool(
            PIPELINE_DEPTH,
            r -> {
              Thread t = new Thread(r, "tandem-relay-" + b.relayId + "-publisher");
              t.setDaemon(true);
              return t;
            });
    this.recorder =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-relay-" + b.relayId + "-recorder");
              t.setDaemon(true);
              return t;
            });
    Gauge.builder("tandem.relay.partitions.owned", leases, l -> l.owned().size())
        .description("Partitions this relay holds a lease on")
        .tag("relay", relayId)
        .register(meters);
    Gauge.builder("tandem.relay.healthy", this, r -> r.status().healthy(r.lease) ? 1 : 0)
        .description("1 while the relay runs, renews its leases and its cycles work, else 0")
        .tag("relay", relayId)
        .register(meters);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** This relay's identity, stored as owner of its partitions and in {@code published_by}. */
  public String relayId() {
    return relayId;
  }

  /** Starts the worker thread (and the LISTEN connection on PostgreSQL). */
  public synchronized void start() {
    if (state != State.NEW) {
      throw new IllegalStateException("relay " + relayId + " was already started (" + state + ")");
    }
    state = State.RUNNING;
    if (listen) {
      listener =
          dialect
              .listenForOutboxInserts(dataSource, relayId, this::wakeUp, ERROR_PAUSE)
              .orElse(null);
    }
    worker = threadFactory.newThread(this::run);
    worker.start();
    log.info(
        "relay {} started on transport {} ({})",
        relayId,
        transport.name(),
        listener != null
            ? "LISTEN/NOTIFY wake-up"
            : "polling every " + pollInterval.toMillis() + " ms");
  }

  /**
   * Runs one cycle on the calling thread, synchronously: coordinates partitions when due, then
   * reads, publishes and records one batch. For a relay that is not {@linkplain #start() started}
   * (tests, custom schedulers).
   *
   * @return the number of events read (0 when nothing was due or no partition is held)
   */
  public synchronized int runOnce() {
    if (state == State.RUNNING || state == State.STOPPING) {
      throw new IllegalStateException(
          "relay " + relayId + " runs on its own thread; runOnce() is for a relay not started");
    }
    drain();
    try {
      return Math.max(0, cycle(false));
    } catch (FaultInjector.SimulatedCrash crash) {
      throw crash;
    } catch (RuntimeException e) {
      lastError = ErrorSummary.of(e);
      health.cycleFailed(e);
      throw e;
    }
  }

  /**
   * One cycle. Pipelined (the worker thread): the batch is published and recorded by a pipeline
   * thread while the worker reads the next batch, so up to {@value #PIPELINE_DEPTH} batches are in
   * flight. The next read starts above a cursor (the last row handed to the pipeline), so it skips
   * rows that are published but not recorded yet; and the claim holds back every event whose
   * earlier version lies at or below the cursor. Batches in flight therefore never hold two
   * versions of one aggregate in different batches, and can be published concurrently without
   * breaking per-aggregate order. Only full batches (a backlog) are pipelined; after a partial
   * batch, or an empty read, the pipeline drains and the next read starts from the beginning again,
   * so rows held back by the cursor, and rows that committed late with a smaller id, are read soon.
   *
   * <p>A partial batch is published on the worker thread itself, and its acknowledged rows are
   * marked by the recorder thread while the worker reads and publishes the next one: the mark is no
   * longer between a commit and the next read. Until the recorder has committed their mark, those
   * rows are left out of every read (they are still unpublished in the table); an event whose
   * earlier version is among them may go, since that version was acknowledged. A batch with a
   * failure is recorded on the worker thread, after the queued marks, before anything more is read,
   * so that retries and quarantines hold back later versions as usual.
   *
   * @return events read; -1 when the pipeline was drained and the caller should look again at once
   */
  private int cycle(boolean pipelined) {
    rethrowCrash();
    if (System.nanoTime() - nextCoordinationNanos >= 0) {
      drain(); // record everything under the current leases before they change
      coordinateIfDue();
    }
    OwnedPartitions owned = leases.owned();
    if (!owned.validAt(System.nanoTime())) {
      drain();
      return 0;
    }
    long from = pipelined ? cursor : 0;
    reapRecords();
    long readStart = System.nanoTime();
    ClaimedBatch batch = store.claim(owned, from, batchSize);
    long readNanos = System.nanoTime() - readStart;
    if (log.isTraceEnabled()) {
      log.trace(
          "relay {}: read {} events above row {} in {} us",
          relayId,
          batch.rowsRead(),
          from,
          readNanos / 1000);
    }
    if (batch.rowsRead() == 0) {
      if (inFlight.isEmpty()) {
        health.cycleSucceeded();
        return 0;
      }
      drain();
      return -1;
    }
    // Rows that are not valid events are quarantined first, so they stop no other row.
    List<ClaimedEvent> claimed = undecodableRows.setAside(batch, owned);
    List<ClaimedEvent> read =
        unrecorded.isEmpty()
            ? claimed
            : claimed.stream().filter(c -> !unrecorded.contains(c.rowId())).toList();
    if (read.isEmpty()) {
      if (claimed.isEmpty()) {
        health.cycleSucceeded(); // it read only rows to quarantine, and quarantined them
        return batch.rowsRead();
      }
      awaitRecords(); // all it read is acknowledged and being marked: look again once marked
      return -1;
    }
    if (!pipelined) {
      publishAndRecord(read, owned);
      return read.size();
    }
    // A full batch means a backlog: keep reading above the cursor while it is published. A
    // partial one means the relay has caught up: the next read waits for it and starts from the
    // beginning, so a row that committed late with a smaller id is never passed over for long.
    if (batch.rowsRead() < batchSize) {
      // Caught up: publish on this thread (no hand-over to the pipeline, whose thread would only
      // add a wake-up to the latency), mark on the recorder thread, let the full batches finish.
      lastAcknowledged = 0;
      try {
        lastAcknowledged = publish(read, owned, true);
      } catch (FaultInjector.SimulatedCrash crash) {
        throw crash;
      } catch (RuntimeException e) {
        // logged by publish; nothing was marked, the batch is read again
      }
      drainBatches();
      return read.size();
    }
    cursor = batch.lastRowId();
    inFlight.add(pipeline.submit(() -> publishAndRecord(read, owned)));
    while (inFlight.size() >= PIPELINE_DEPTH) {
      await(inFlight.poll());
    }
    return batch.rowsRead(); // a full read: look again at once
  }

  private void publishAndRecord(List<ClaimedEvent> batch, OwnedPartitions owned) {
    publish(batch, owned, false);
  }

  /**
   * Publishes the batch and records its outcome: on this thread, or with {@code recordLater} and no
   * failure in the batch, on the recorder thread (the rows stay out of reads until then).
   *
   * @return how many of its events the broker acknowledged
   */
  private int publish(List<ClaimedEvent> batch, OwnedPartitions owned, boolean recordLater) {
    try {
      Timer.Sample sample = Timer.start(meters);
      faults.reached(FaultInjector.RELAY_AFTER_CLAIM);
      List<Long> acknowledged = new ArrayList<>(batch.size());
      List<OutboxStore.Failure> failures = new ArrayList<>();
      publishInRounds(batch, owned, acknowledged, failures);
      faults.reached(FaultInjector.RELAY_AFTER_ACK);
      long publishNanos = sample.stop(batchTimer);
      long recordStart = System.nanoTime();
      if (recordLater && failures.isEmpty()) {
        recordLater(owned, acknowledged);
        return acknowledged.size();
      }
      if (recordLater) {
        awaitRecords(); // marks go in order; retries and quarantines are in place before a read
      }
      record(owned, acknowledged, failures);
      if (log.isTraceEnabled()) {
        log.trace(
            "relay {}: published {} events in {} us, recorded them in {} us",
            relayId,
            batch.size(),
            publishNanos / 1000,
            (System.nanoTime() - recordStart) / 1000);
      }
      return acknowledged.size();
    } catch (FaultInjector.SimulatedCrash crash) {
      crashed = crash;
      throw crash;
    } catch (RuntimeException e) {
      // Nothing was marked: the batch stays unpublished and is read and published again.
      lastError = ErrorSummary.of(e);
      health.cycleFailed(e);
      log.error("relay {}: publishing a batch of {} events failed", relayId, batch.size(), e);
      throw e;
    }
  }

  private void record(
      OwnedPartitions owned, List<Long> acknowledged, List<OutboxStore.Failure> failures) {
    int marked;
    try {
      marked = store.record(relayId, owned, acknowledged, failures);
    } catch (RuntimeException e) {
      lastError = ErrorSummary.of(e);
      health.cycleFailed(e);
      log.error(
          "relay {}: recording a batch failed; its {} acknowledged events stay unpublished and"
              + " are published again (consumers deduplicate)",
          relayId,
          acknowledged.size(),
          e);
      return;
    }
    health.cycleSucceeded();
    published.addAndGet(marked);
    publishedCounter.increment(marked);
    failed.addAndGet(failures.size());
    scheduleRetryLook(failures);
    if (marked < acknowledged.size()) {
      log.warn(
          "relay {}: {} of {} acknowledged events were not marked: their partition moved to"
              + " another relay, which publishes them again (consumers deduplicate)",
          relayId,
          acknowledged.size() - marked,
          acknowledged.size());
    } else {
      lastError = null;
    }
  }

  private void recordLater(OwnedPartitions owned, List<Long> acknowledged) {
    if (acknowledged.isEmpty()) {
      return;
    }
    unrecorded.addAll(acknowledged);
    recording.add(
        new PendingRecord(
            recorder.submit(() -> record(owned, acknowledged, List.of())), acknowledged));
    while (recording.size() > RECORDS_QUEUED) {
      PendingRecord oldest = recording.poll();
      await(oldest.done());
      unrecorded.removeAll(oldest.rows());
    }
  }

  /**
   * Forgets the rows of finished marks (committed, or failed and so due again). Called before a
   * read only, so that a read never starts before the mark of a row it no longer leaves out.
   */
  private void reapRecords() {
    while (!recording.isEmpty() && recording.peek().done().isDone()) {
      unrecorded.removeAll(recording.poll().rows());
    }
  }

  /** Waits until every queued mark is done. */
  private void awaitRecords() {
    while (!recording.isEmpty()) {
      PendingRecord next = recording.poll();
      await(next.done());
      unrecorded.removeAll(next.rows());
    }
  }

  /** A mark queued on the recorder thread and the rows it marks. */
  private record PendingRecord(Future<?> done, List<Long> rows) {}

  /**
   * Waits until every full batch in flight is published and recorded; the next read starts at 0.
   */
  private void drainBatches() {
    while (!inFlight.isEmpty()) {
      await(inFlight.poll());
    }
    cursor = 0;
    rethrowCrash();
  }

  /** Waits until every batch in flight and every queued mark is done; the next read starts at 0. */
  private void drain() {
    drainBatches();
    awaitRecords();
  }

  private static void await(Future<?> batch) {
    try {
      batch.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | CancellationException e) {
      // publishAndRecord logs its own failures; a crash is rethrown by rethrowCrash
    }
  }

  private void rethrowCrash() {
    FaultInjector.SimulatedCrash crash = crashed;
    if (crash != null) {
      throw crash;
    }
  }

  private static String aggregateKey(ClaimedEvent c) {
    return c.event().aggregateType() + '\u0000' + c.event().aggregateId();
  }

  /**
   * Publishes the batch so that no event leaves before the previous version of its aggregate was
   * acknowledged: round k holds the k-th pending event of every aggregate still in good standing.
   * Events left unsent (out of time or lease) stay due and are read again.
   */
  private void publishInRounds(
      List<ClaimedEvent> batch,
      OwnedPartitions owned,
      List<Long> acknowledged,
      List<OutboxStore.Failure> failures) {
    Map<String, Deque<ClaimedEvent>> byAggregate = new LinkedHashMap<>();
    for (ClaimedEvent c : batch) {
      byAggregate.computeIfAbsent(aggregateKey(c), k -> new ArrayDeque<>()).add(c);
    }
    byAggregate.values().forEach(q -> sortByVersion(q));
    long deadline = System.nanoTime() + publishTimeout.toNanos();
    while (!byAggregate.isEmpty()) {
      long now = System.nanoTime();
      long budget = Math.min(deadline - now, owned.validUntilNanos() - now);
      if (budget <= 0) {
        return; // out of time or lease: the rest stays due
      }
      List<ClaimedEvent> round = new ArrayList<>(byAggregate.size());
      byAggregate.values().forEach(q -> round.add(q.poll()));
      attempts.increment(round.size());
      List<Event> events = round.stream().map(ClaimedEvent::event).toList();
      List<PublishOutcome> outcomes;
      // one span per broker call, linked to each event's own trace (the events' consumers are
      // children of the spans that appended them, not of this one)
      try (Tracing.Span span = tracing.startBatch("publish " + transport.name(), events)) {
        outcomes = transport.publish(events, Duration.ofNanos(budget));
        span.outcome(
            outcomes.stream().filter(PublishOutcome::acknowledged).count()
                + " of "
                + events.size()
                + " acknowledged");
      }
      TransportReplies.check(
          transport.name(), round.stream().map(c -> c.event().eventId()).toList(), outcomes);
      Instant ackedAt = Instant.now();
      for (int i = 0; i < round.size(); i++) {
        ClaimedEvent c = round.get(i);
        PublishOutcome outcome = outcomes.get(i);
        if (outcome.acknowledged()) {
          acknowledged.add(c.rowId());
          Duration latency = Duration.between(c.event().occurredAt(), ackedAt);
          publishLatency.record(latency.isNegative() ? Duration.ZERO : latency);
        } else {
          failures.add(failure(c, outcome.failure()));
          // later versions of this aggregate wait for this one
          byAggregate.remove(aggregateKey(c));
        }
      }
      byAggregate.values().removeIf(Deque::isEmpty);
    }
  }

  private static void sortByVersion(Deque<ClaimedEvent> queue) {
    if (queue.size() > 1) {
      List<ClaimedEvent> sorted = new ArrayList<>(queue);
      sorted.sort(Comparator.comparingLong(c -> c.event().aggregateVersion()));
      queue.clear();
      queue.addAll(sorted);
    }
  }

  private OutboxStore.Failure failure(ClaimedEvent claimed, PublishException error) {
    boolean quarantine = !error.retriable() || !retryPolicy.mayRetry(claimed.attempt());
    Duration delay = quarantine ? Duration.ZERO : retryPolicy.delayAfter(claimed.attempt());
    meters.counter("tandem.relay.failures", "error_class", error.errorClass().name()).increment();
    if (quarantine) {
      meters
          .counter("tandem.relay.quarantined", "error_class", error.errorClass().name())
          .increment();
      log.error(
          "relay {}: quarantining {} after attempt {} ({}); later events of aggregate {}/{} wait"
              + " for an operator (OutboxOperations.replay or skip): {}",
          relayId,
          claimed.event(),
          claimed.attempt(),
          error.errorClass(),
          claimed.event().aggregateType(),
          claimed.event().aggregateId(),
          error.getMessage());
    } else {
      log.warn(
          "relay {}: attempt {} of {} failed ({}), retry in {} ms: {}",
          relayId,
          claimed.attempt(),
          claimed.event(),
          error.errorClass(),
          delay.toMillis(),
          error.getMessage());
    }
    return new OutboxStore.Failure(
        claimed.rowId(),
        claimed.partition(),
        error.errorClass(),
        error.getMessage(),
        quarantine,
        delay);
  }

  private void coordinateIfDue() {
    long now = System.nanoTime();
    if (now - nextCoordinationNanos < 0) {
      return;
    }
    OwnedPartitions previous = leases.owned();
    int before = previous.size();
    try {
      OwnedPartitions owned = leases.coordinate();
      lastRenewalNanos = now;
      countLeases(previous, owned, now);
      if (owned.size() != before) {
        log.info(
            "relay {} holds {} of {} partitions (fair share {})",
            relayId,
            owned.size(),
            Dialect.PARTITIONS,
            leases.share());
      }
      // Below its share a relay looks again soon, to pick up partitions others give back.
      Duration next = owned.size() < leases.share() ? pollInterval : heartbeat;
      nextCoordinationNanos = now + Math.min(next.toNanos(), heartbeat.toNanos());
    } catch (RuntimeException e) {
      lastError = ErrorSummary.of(e);
      log.error(
          "relay {}: cannot renew partition leases; it stops publishing when they run out and"
              + " other relays take over",
          relayId,
          e);
      nextCoordinationNanos = now + ERROR_PAUSE.toNanos();
      countLapse(previous, System.nanoTime());
    }
  }

  /** Counts the leases a coordination renewed and took, and those that ran out before it. */
  private void countLeases(OwnedPartitions previous, OwnedPartitions owned, long startNanos) {
    countLapse(previous, startNanos);
    boolean lapsed = !previous.isEmpty() && !previous.validAt(startNanos);
    for (Map.Entry<Integer, Long> held : owned.epochs().entrySet()) {
      if (!lapsed && held.getValue().equals(previous.epochs().get(held.getKey()))) {
        leaseRenewals.increment();
      } else {
        leaseAcquisitions.increment();
      }
    }
  }

  /** Counts once the partitions of a holding whose leases ran out before a renewal. */
  private void countLapse(OwnedPartitions holding, long nowNanos) {
    if (!holding.isEmpty() && !holding.validAt(nowNanos) && holding != lapseCounted) {
      lapseCounted = holding;
      leaseExpiries.increment(holding.size());
    }
  }

  private void run() {
    try {
      while (state == State.RUNNING) {
        int read;
        try {
          read = cycle(true);
        } catch (FaultInjector.SimulatedCrash crash) {
          throw crash;
        } catch (RuntimeException e) {
          lastError = ErrorSummary.of(e);
          health.cycleFailed(e);
          log.error("relay {}: cycle failed, pausing {} ms", relayId, ERROR_PAUSE.toMillis(), e);
          drain();
          pause(ERROR_PAUSE);
          continue;
        }
        if (read >= 0 && read < batchSize) { // caught up (a full batch reads again at once)
          pause(keepsUp(read) ? lingerWhenBusy : untilNextLook());
        }
      }
      drain();
      releasePartitions();
      pipeline.shutdown();
      recorder.shutdown();
      state = State.STOPPED;
    } catch (FaultInjector.SimulatedCrash crash) {
      pipeline.shutdownNow(); // a dead process publishes and records nothing more
      recorder.shutdownNow();
      state = State.CRASHED;
      closeListener();
      log.warn(
          "relay {} crashed on purpose ({}); its partition leases expire by themselves",
          relayId,
          crash.getMessage());
    }
  }

  /**
   * Notes when each retry of {@code failures} falls due. Called after they were recorded: the
   * database set their next attempt at its transaction's time, before now, plus the same delay.
   */
  private void scheduleRetryLook(List<OutboxStore.Failure> failures) {
    long now = System.nanoTime();
    for (OutboxStore.Failure f : failures) {
      if (!f.quarantine()) {
        retryLooks.add(now + f.retryDelay().toNanos());
      }
    }
  }

  /**
   * How long an idle relay waits for a notification before it reads anyway: the fallback poll, the
   * next coordination (heartbeat), a late look or a retry that falls due, whichever comes first.
   */
  private Duration untilNextLook() {
    long now = System.nanoTime();
    long wait = Math.min(pollInterval.toNanos(), nextCoordinationNanos - now);
    // Zero when a retry fell due since the read just made began, or before it: one more read now.
    wait = Math.min(wait, retryLooks.untilNext(now));
    if (lateLookNanos != 0) {
      long untilLateLook = lateLookNanos - now;
      if (untilLateLook > 0) {
        wait = Math.min(wait, untilLateLook);
      } else {
        lateLookNanos = 0; // the read just made was that look
      }
    }
    return Duration.ofNanos(Math.max(0, wait));
  }

  /**
   * After a caught-up cycle: whether to look again soon ({@code lingerWhenBusy} later), without
   * waiting for a notification. Under a steady stream of commits every read finds rows, and a
   * notification per commit would only wake the listener, the relay and the database's listening
   * session for nothing: after {@value #BUSY_CYCLES} caught-up cycles in a row that each published
   * something, the relay switches the notifications off and keeps reading, {@code lingerWhenBusy}
   * after each cycle so that the batches grow with the load; the first read that finds nothing
   * switches them on again (and the listener then calls once, for rows committed in between) before
   * the relay waits. While no relay listens, writers skip the notification (the outbox trigger
   * checks {@code tandem_relay_instance.listening}); a row inserted then but committed after the
   * relay's last read is found by one more look {@code LATE_LOOK} later, or by the fallback poll. A
   * cycle whose batch was not acknowledged (broker down) never counts as busy: the relay then waits
   * as usual, it does not spin.
   */
  private boolean keepsUp(int read) {
    InsertNotifications notifications = listener;
    if (notifications == null) {
      return false;
    }
    if (read > 0 && lastAcknowledged > 0) {
      if (++busyCycles >= BUSY_CYCLES) {
        notifications.setListening(false);
        return true;
      }
      return false;
    }
    if (busyCycles >= BUSY_CYCLES) {
      lateLookNanos = System.nanoTime() + LATE_LOOK.toNanos();
    }
    busyCycles = 0;
    notifications.setListening(true);
    return false;
  }

  private void releasePartitions() {
    try {
      leases.releaseAll();
    } catch (RuntimeException e) {
      log.warn(
          "relay {}: could not give its partitions back; they expire by themselves", relayId, e);
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
   * This instance's view of itself: partitions, last renewal, last error, counters, and whether its
   * cycles keep failing ({@link RelayStatus#healthy(Duration)}).
   */
  public RelayStatus status() {
    long renewed = lastRenewalNanos;
    OwnedPartitions owned = leases.owned();
    return new RelayStatus(
        relayId,
        state.name(),
        owned.validAt(System.nanoTime()) ? owned.epochs().keySet() : java.util.Set.of(),
        leases.share(),
        renewed == 0 ? null : Duration.ofNanos(System.nanoTime() - renewed),
        lastError,
        published.get(),
        failed.get(),
        health.failuresInARow(),
        health.failing(),
        health.sinceLastGoodCycle());
  }

  /**
   * Stops gracefully: no new batch is read, the batch in flight is published and recorded, the
   * partitions are given back so other relays take over at once, then the worker ends. Waits at
   * most the publish timeout plus 10 seconds.
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
    if (t != null) {
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
    } else if (state == State.STOPPING || state == State.NEW) {
      state = State.STOPPED;
    }
    closeListener();
    pipeline.shutdown();
    recorder.shutdown();
  }

  private void closeListener() {
    InsertNotifications l = listener;
    listener = null;
    if (l != null) {
      try {
        l.close();
      } catch (Exception e) {
        log.debug("closing the LISTEN connection failed", e);
      }
    }
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
      return new OutboxRelay(this);
    }

    /**
     * Checks every setting but the data source and the transport, as {@link #build()} does, without
     * touching the database: a process that connects only after its settings were accepted (the
     * {@code tandem relay} command) calls this first.
     *
     * @throws IllegalArgumentException naming the first setting that is invalid
     */
    public Builder checkSettings() {
      require(
          relayId != null && !relayId.isBlank() && relayId.length() <= 200,
          "relayId must be 1 to 200 characters, was '" + relayId + "'");
      require(
          batchSize >= 1 && batchSize <= 10_000,
          "batchSize must be between 1 and 10000, was " + batchSize);
      positive("publishTimeout", publishTimeout);
      positive("pollInterval", pollInterval);
      require(
          lingerWhenBusy != null
              && !lingerWhenBusy.isNegative()
              && lingerWhenBusy.compareTo(Duration.ofSeconds(1)) <= 0,
          "lingerWhenBusy must be between 0 and 1 s, was " + lingerWhenBusy);
      positive("leaseDuration", lease);
      positive("heartbeatInterval", heartbeat);
      require(
          lease.compareTo(publishTimeout.plus(heartbeat)) > 0,
          "leaseDuration ("
              + lease
              + ") must exceed publishTimeout + heartbeatInterval ("
              + publishTimeout.plus(heartbeat)
              + "), or a partition could move to another relay while a batch is in flight");
      require(
          unhealthyAfter >= 1 && unhealthyAfter <= 1000,
          "unhealthyAfterFailedCycles must be between 1 and 1000, was " + unhealthyAfter);
      Objects.requireNonNull(retryPolicy, "retryPolicy");
      Objects.requireNonNull(faults, "faultInjector");
      return this;
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
