package io.tandem.inbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.FaultInjector;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a consumer: takes messages from a {@link MessageSource} (Kafka, RabbitMQ, NATS JetStream,
 * Redis Streams) and applies them through an {@link InboxProcessor}, different aggregates in
 * parallel and each aggregate's events one after the other.
 *
 * <pre>{@code
 * ConsumerRunner runner = ConsumerRunner.builder()
 *     .source(KafkaMessageSource.builder()
 *         .bootstrapServers("kafka:9092").groupId("billing").topics(List.of("tandem.order"))
 *         .build())
 *     .processor(billing)
 *     .concurrency(4)
 *     .build();
 * runner.start();
 * ...
 * runner.close(); // finishes the messages being applied, leaves the rest to redelivery
 * }</pre>
 *
 * <p>How it works: the source's thread decodes each message and puts it on one of {@code
 * concurrency} lanes chosen by its aggregate (type and id); each lane is one worker thread ({@code
 * tandem-consumer-<consumer>-<n>}) that processes its messages in arrival order: it takes what it
 * has queued, up to {@code maxBatch}, without waiting for more, and applies it in one transaction
 * ({@link InboxProcessor#apply(java.util.List)}). At most {@code maxInFlight} messages are taken
 * and not yet finished; beyond that the source's hand-over blocks (back-pressure: the source
 * fetches nothing more).
 *
 * <p>The runner is each message's one owner: the processor returns every message's outcome and
 * settles none; the lane then acknowledges each at the broker (all but {@link Outcome#ABANDONED}),
 * so only after its transaction committed. A crash, a {@link #close()} or a rebalance loses nothing
 * and the inbox makes the redelivery harmless. A message whose handler fails blocks its lane while
 * it is retried (other lanes go on), then goes to the dead-letter table. A failure that is not a
 * handler's — the commit, the consumer's own statements — is retried without giving up and never
 * dead-letters the message. A failure that escapes the processor (a bug) or an acknowledgement that
 * fails is retried with the processor's retry policy, then left unacknowledged for redelivery
 * ({@code tandem.consumer.lane.failures}).
 *
 * <p>Every {@code sweepInterval} the runner applies parked events left behind by a consumer that
 * stopped or died right after applying their predecessor ({@link InboxProcessor#drainReady()});
 * every {@code gapCheckInterval} it calls {@link InboxProcessor#checkGaps()} (metrics and warnings
 * for events parked too long).
 *
 * <p>Defaults: concurrency 4, maxInFlight 256, maxBatch 64, sweep every 5 s, gap check every 30 s,
 * close timeout 30 s. Gauge {@code tandem.consumer.in_flight}, counter {@code
 * tandem.consumer.lane.failures}. Thread-safe.
 */
public final class ConsumerRunner implements AutoCloseable {
  public static final int DEFAULT_CONCURRENCY = 4;
  public static final int DEFAULT_MAX_IN_FLIGHT = 256;

  /**
   * 64: a batch takes no savepoint until a handler fails; then it runs again with each per-event
   * handler call behind a savepoint, and on PostgreSQL more than 64 subtransactions that write in
   * one transaction overflow the backend's subtransaction cache, which slows every session's
   * snapshots. Batch handlers ({@code onBatch}) take one savepoint per call and can run larger
   * batches.
   */
  public static final int DEFAULT_MAX_BATCH = 64;

  public static final Duration DEFAULT_GAP_CHECK_INTERVAL = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(ConsumerRunner.class);

  private final MessageSource source;
  private final InboxProcessor processor;
  private final int maxInFlight;
  private final int maxBatch;
  private final Duration gapCheckInterval;
  private final Duration closeTimeout;
  private final Duration sweepInterval;
  private final Semaphore permits;
  private final List<Lane> lanes = new ArrayList<>();
  private final AtomicLong inFlight = new AtomicLong();
  private final Counter laneFailures;
  private volatile boolean stopping;
  private volatile boolean crashed;
  private Housekeeping housekeeping; // guarded by this
  private boolean started; // guarded by this
  private boolean closed; // guarded by this

  private ConsumerRunner(Builder b) {
    this.source = b.source;
    this.processor = b.processor;
    this.maxInFlight = b.maxInFlight;
    this.maxBatch = b.maxBatch;
    this.gapCheckInterval = b.gapCheckInterval;
    this.closeTimeout = b.closeTimeout;
    this.sweepInterval = b.sweepInterval;
    this.permits = new Semaphore(b.maxInFlight);
    this.laneFailures =
        RunnerMeters.register(b.meterRegistry, processor.consumer(), source, inFlight);
    LaneWork work = new LaneWork(processor, laneFailures, b.afterApplied, () -> stopping);
    for (int i = 0; i < b.concurrency; i++) {
      lanes.add(
          new Lane(
              i,
              processor.consumer(),
              maxBatch,
              work,
              () -> stopping,
              this::finished,
              this::crashed));
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts the lanes, the sweeps and gap checks, and the source.
   *
   * @throws IllegalStateException if already started or closed
   */
  public synchronized void start() {
    if (closed || started) {
      throw new IllegalStateException(
          "consumer runner " + processor.consumer() + " is " + (closed ? "closed" : "started"));
    }
    started = true;
    lanes.forEach(lane -> lane.thread.start());
    housekeeping = new Housekeeping(processor, sweepInterval, gapCheckInterval, () -> stopping);
    source.start(this::accept);
    LOG.info(
        "consumer {}: running on {} with {} lanes, at most {} messages in flight, batches of up to"
            + " {}",
        processor.consumer(),
        source.describe(),
        lanes.size(),
        maxInFlight,
        maxBatch);
  }

  /** The sink the source hands messages to; runs on the source's thread. */
  private boolean accept(InboundMessage message) throws InterruptedException {
    Decoded decoded = Decoded.of(message);
    while (!permits.tryAcquire(100, TimeUnit.MILLISECONDS)) {
      if (stopping) {
        return false;
      }
    }
    if (stopping) {
      permits.release();
      return false;
    }
    inFlight.incrementAndGet();
    lanes.get(Math.floorMod(decoded.laneKey().hashCode(), lanes.size())).queue.add(decoded);
    return true;
  }

  private void finished(List<Decoded> batch) {
    inFlight.addAndGet(-batch.size());
    permits.release(batch.size());
  }

  private void crashed(FaultInjector.SimulatedCrash crash) {
    LOG.warn("consumer {}: {}; the runner stops as if killed", processor.consumer(), crash);
    crashed = true;
    stopping = true;
    source.close();
  }

  /** Whether the source and every lane are running. */
  public boolean isRunning() {
    if (stopping || crashed || !source.isRunning()) {
      return false;
    }
    return lanes.stream().allMatch(lane -> lane.thread.isAlive());
  }

  /** Messages taken from the source and not finished yet. */
  public long inFlight() {
    return inFlight.get();
  }

  /** The processor this runner applies messages with. */
  public InboxProcessor processor() {
    return processor;
  }

  /** Failures that escaped the processor or an acknowledgement, retried by a lane. */
  public long laneFailures() {
    return (long) laneFailures.count();
  }

  /**
   * Stops gracefully: the source stops receiving, each lane finishes the batch it is applying (a
   * retry backoff is cut short, leaving that message unacknowledged), messages waiting in lanes are
   * left unacknowledged for redelivery, and the source closes (committing what was acknowledged).
   * Waits at most the close timeout for the lanes, then interrupts them. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    stopping = true;
    long deadline = System.nanoTime() + closeTimeout.toNanos();
    for (Lane lane : lanes) {
      if (!lane.awaitStop(deadline)) {
        LOG.warn(
            "consumer {}: lane {} did not stop within {}; interrupted it",
            processor.consumer(),
            lane.index,
            closeTimeout);
      }
    }
    source.close();
    synchronized (this) {
      if (housekeeping != null) {
        housekeeping.close();
      }
    }
    LOG.info("consumer {}: stopped", processor.consumer());
  }

  /** Builds a {@link ConsumerRunner}; {@code source} and {@code processor} are required. */
  public static final class Builder {
    private MessageSource source;
    private InboxProcessor processor;
    private int concurrency = DEFAULT_CONCURRENCY;
    private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
    private int maxBatch = DEFAULT_MAX_BATCH;
    private Duration gapCheckInterval = DEFAULT_GAP_CHECK_INTERVAL;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;
    private MeterRegistry meterRegistry = new SimpleMeterRegistry();
    private Runnable afterApplied = () -> {};

    private Builder() {}

    /** Where messages come from; the runner starts and closes it. Required. */
    public Builder source(MessageSource source) {
      this.source = source;
      return this;
    }

    /** Applies each message. Required. */
    public Builder processor(InboxProcessor processor) {
      this.processor = processor;
      return this;
    }

    /** Worker lanes, 1 to 256; default 4. One aggregate always maps to the same lane. */
    public Builder concurrency(int concurrency) {
      this.concurrency = concurrency;
      return this;
    }

    /**
     * Messages taken and not finished, across lanes, before the source is held; default 256. It
     * bounds the batches too: a lane can only batch what is in flight.
     */
    public Builder maxInFlight(int maxInFlight) {
      this.maxInFlight = maxInFlight;
      return this;
    }

    /**
     * The most messages a lane applies in one transaction, 1 to 10,000; default {@value
     * #DEFAULT_MAX_BATCH}. A lane takes what it has queued (never waiting for a batch to fill), so
     * at low load batches are small and latency stays that of one message. 1 applies each message
     * in its own transaction.
     */
    public Builder maxBatch(int maxBatch) {
      this.maxBatch = maxBatch;
      return this;
    }

    /** How often to check for events parked too long; default 30 s. */
    public Builder gapCheckInterval(Duration gapCheckInterval) {
      this.gapCheckInterval = gapCheckInterval;
      return this;
    }

    /**
     * How often to apply parked events whose predecessor is applied already (left behind by a
     * consumer that stopped between the two); default 5 s.
     */
    public Builder sweepInterval(Duration sweepInterval) {
      this.sweepInterval = sweepInterval;
      return this;
    }

    /** How long {@link #close()} waits for the lanes; default 30 s. */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = closeTimeout;
      return this;
    }

    /**
     * Runs on the lane's thread after each message whose handler's effect committed ({@link
     * Outcome#APPLIED}), for example {@code relay::wakeUp} of an {@code OutboxRelay} on the same
     * database in the same process: what the handler appended to the outbox then leaves at once
     * instead of at the relay's next poll (MariaDB, or PostgreSQL without notifications). It must
     * return quickly; an exception it throws is logged and changes nothing. Default: nothing.
     *
     * <p>It runs after the commit of the message's batch, once per applied message, so a
     * thread-local a handler set names only the batch's last event: to know which event was
     * applied, use {@link InboxProcessor.Builder#afterCommit} (event and outcome).
     */
    public Builder afterApplied(Runnable afterApplied) {
      this.afterApplied = afterApplied;
      return this;
    }

    /** Where the runner's gauge goes; default a private in-memory registry. */
    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = meterRegistry;
      return this;
    }

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming the first missing or invalid parameter
     */
    public ConsumerRunner build() {
      if (source == null) {
        throw new IllegalArgumentException("source is required");
      }
      if (processor == null) {
        throw new IllegalArgumentException("processor is required");
      }
      if (afterApplied == null) {
        throw new IllegalArgumentException("afterApplied must not be null (omit it for none)");
      }
      if (concurrency < 1 || concurrency > 256) {
        throw new IllegalArgumentException(
            "concurrency must be between 1 and 256, was " + concurrency);
      }
      if (maxInFlight < concurrency) {
        throw new IllegalArgumentException(
            "maxInFlight must be at least concurrency (" + concurrency + "), was " + maxInFlight);
      }
      if (maxBatch < 1 || maxBatch > 10_000) {
        throw new IllegalArgumentException(
            "maxBatch must be between 1 and 10000, was "
                + maxBatch
                + " (1 applies each message in its own transaction)");
      }
      positive(gapCheckInterval, "gapCheckInterval");
      positive(closeTimeout, "closeTimeout");
      positive(sweepInterval, "sweepInterval");
      if (meterRegistry == null) {
        throw new IllegalArgumentException("meterRegistry must not be null");
      }
      return new ConsumerRunner(this);
    }

    private static void positive(Duration value, String name) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be a positive duration, was " + value);
      }
    }
  }
}
