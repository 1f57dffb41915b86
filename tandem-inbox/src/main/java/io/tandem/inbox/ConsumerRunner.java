package io.tandem.inbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.FaultInjector;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSource;
import io.tandem.inbox.InboxProcessor.Decoded;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
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
 * ({@link InboxProcessor#process(java.util.List)}). At most {@code maxInFlight} messages are taken
 * and not yet finished; beyond that the source's hand-over blocks (back-pressure: the source
 * fetches nothing more). A message is acknowledged by the processor only after its transaction
 * committed, so a crash, a {@link #close()} or a rebalance loses nothing and the inbox makes the
 * redelivery harmless. A failing message blocks its lane while it is retried (other lanes go on),
 * then goes to the dead-letter table — also when the failure escapes the processor (an {@link
 * Error} while acknowledging, a bug): the lane processes it again with the processor's retry
 * policy, then dead-letters it, and goes on ({@code tandem.consumer.lane.failures}).
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
   * 64: each per-event handler call runs behind a savepoint, and on PostgreSQL more than 64
   * subtransactions that write in one transaction overflow the backend's subtransaction cache,
   * which slows every session's snapshots. Batch handlers ({@code onBatch}) take one savepoint per
   * call and can run larger batches.
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
  private final Runnable afterApplied;
  private final Semaphore permits;
  private final List<Lane> lanes = new ArrayList<>();
  private final AtomicLong inFlight = new AtomicLong();
  private final Counter laneFailures;
  private volatile boolean stopping;
  private volatile boolean crashed;
  private ScheduledExecutorService gapChecker; // guarded by this
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
    this.afterApplied = b.afterApplied;
    this.permits = new Semaphore(b.maxInFlight);
    for (int i = 0; i < b.concurrency; i++) {
      lanes.add(new Lane(i));
    }
    this.laneFailures =
        Counter.builder("tandem.consumer.lane.failures")
            .description(
                "Failures that escaped the processor, retried then dead-lettered by a lane")
            .tag("consumer", processor.consumer())
            .register(b.meterRegistry);
    Gauge.builder("tandem.consumer.in_flight", inFlight, AtomicLong::get)
        .description("Messages taken from the source and not yet finished")
        .tag("consumer", processor.consumer())
        .register(b.meterRegistry);
    MessageSource lagging = source;
    Gauge.builder(
            "tandem.consumer.lag",
            () -> {
              OptionalLong lag = lagging.lag();
              return lag.isPresent() ? (double) lag.getAsLong() : Double.NaN;
            })
        .description(
            "Messages of the source not processed yet, as the broker reports it (NaN where the"
                + " source cannot tell)")
        .tag("consumer", processor.consumer())
        .register(b.meterRegistry);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts the lanes, the gap checker and the source.
   *
   * @throws IllegalStateException if already started or closed
   */
  public synchronized void start() {
    if (closed || started) {
      throw new IllegalStateException(
          "consumer runner " + processor.consumer() + " is " + (closed ? "closed" : "started"));
    }
    started = true;
    for (Lane lane : lanes) {
      lane.thread.start();
    }
    gapChecker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-consumer-" + processor.consumer() + "-gaps");
              t.setDaemon(true);
              return t;
            });
    gapChecker.scheduleWithFixedDelay(
        this::drainReady, 0, sweepInterval.toMillis(), TimeUnit.MILLISECONDS);
    gapChecker.scheduleWithFixedDelay(
        this::checkGaps,
        gapCheckInterval.toMillis(),
        gapCheckInterval.toMillis(),
        TimeUnit.MILLISECONDS);
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
    Decoded decoded = processor.decode(message);
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
    lanes.get(lane(decoded)).queue.add(decoded);
    return true;
  }

  private void drainReady() {
    if (!ordered()) {
      return;
    }
    try {
      int aggregates = processor.drainReady();
      if (aggregates > 0) {
        LOG.info(
            "consumer {}: applied parked events of {} aggregates left behind earlier",
            processor.consumer(),
            aggregates);
      }
    } catch (RuntimeException e) {
      LOG.warn("consumer {}: sweeping parked events failed", processor.consumer(), e);
    }
  }

  private boolean ordered() {
    return processor.ordered() && !stopping;
  }

  private void checkGaps() {
    try {
      processor.checkGaps();
    } catch (RuntimeException e) {
      LOG.warn("consumer {}: gap check failed", processor.consumer(), e);
    }
  }

  /** Whether the source and every lane are running. */
  public boolean isRunning() {
    if (stopping || crashed || !source.isRunning()) {
      return false;
    }
    for (Lane lane : lanes) {
      if (!lane.thread.isAlive()) {
        return false;
      }
    }
    return true;
  }

  /** Messages taken from the source and not finished yet. */
  public long inFlight() {
    return inFlight.get();
  }

  /** The processor this runner applies messages with. */
  public InboxProcessor processor() {
    return processor;
  }

  /**
   * Stops gracefully: the source stops receiving, each lane finishes the message it is applying (a
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
      if (lane.thread == Thread.currentThread() || !lane.thread.isAlive()) {
        continue;
      }
      try {
        lane.thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        if (lane.thread.isAlive()) {
          LOG.warn(
              "consumer {}: lane {} did not stop within {}; interrupting it",
              processor.consumer(),
              lane.index,
              closeTimeout);
          lane.thread.interrupt();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    source.close();
    synchronized (this) {
      if (gapChecker != null) {
        gapChecker.shutdownNow();
      }
    }
    LOG.info("consumer {}: stopped", processor.consumer());
  }

  /** One worker thread and the messages of the aggregates that hash to it. */
  private void notifyApplied() {
    try {
      afterApplied.run();
    } catch (RuntimeException e) {
      LOG.warn("consumer {}: the afterApplied callback failed", processor.consumer(), e);
    }
  }

  private final class Lane implements Runnable {
    final int index;
    final BlockingQueue<Decoded> queue = new LinkedBlockingQueue<>();
    final Thread thread;

    Lane(int index) {
      this.index = index;
      this.thread = new Thread(this, "tandem-consumer-" + processor.consumer() + "-" + index);
    }

    @Override
    public void run() {
      try {
        while (!stopping) {
          Decoded next;
          try {
            next = queue.poll(100, TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            return;
          }
          if (next == null) {
            continue;
          }
          // What the lane has, never waiting for more: an idle stream keeps its latency.
          List<Decoded> batch = new ArrayList<>();
          batch.add(next);
          queue.drainTo(batch, maxBatch - 1);
          try {
            processBatch(batch);
          } catch (FaultInjector.SimulatedCrash crash) {
            LOG.warn("consumer {}: {}; the runner stops as if killed", processor.consumer(), crash);
            crashed = true;
            stopping = true;
            source.close();
            return;
          } finally {
            inFlight.addAndGet(-batch.size());
            permits.release(batch.size());
          }
        }
      } finally {
        int left = queue.size();
        queue.clear();
        if (left > 0) {
          LOG.info(
              "consumer {}: lane {} leaves {} unprocessed messages for redelivery",
              processor.consumer(),
              index,
              left);
        }
      }
    }
  }

  /**
   * Processes a lane's batch in one transaction; a failure that escapes the processor sends each of
   * its messages down {@link #processOrDeadLetter} (the inbox absorbs those settled already).
   */
  private void processBatch(List<Decoded> batch) {
    if (batch.size() == 1) {
      processOrDeadLetter(batch.get(0));
      return;
    }
    List<Outcome> outcomes;
    try {
      outcomes = processor.process(batch, () -> stopping);
    } catch (FaultInjector.SimulatedCrash crash) {
      throw crash;
    } catch (InboxBatch.Unsettled unsettled) {
      // committed; these few failed after the commit (settling them): each goes on alone
      notifyApplied(java.util.Arrays.asList(unsettled.outcomes));
      for (int k = 0; k < unsettled.indices.size(); k++) {
        laneFailures.increment();
        Decoded d = batch.get(unsettled.indices.get(k));
        Throwable cause = unsettled.failures.get(k);
        LOG.error(
            "consumer {}: settling {} failed after its batch committed; retrying it alone",
            processor.consumer(),
            d.message().origin(),
            cause);
        if (processor.mayRetry(1) && sleep(processor.retryDelay(1))) {
          processOrDeadLetter(d, 1);
        } else if (!stopping) {
          deadLetter(d, cause, 1);
        }
      }
      return;
    } catch (RuntimeException | Error e) {
      laneFailures.increment();
      LOG.error(
          "consumer {}: a batch of {} failed outside its handlers; processing it message by"
              + " message",
          processor.consumer(),
          batch.size(),
          e);
      for (Decoded d : batch) {
        processOrDeadLetter(d);
      }
      return;
    }
    notifyApplied(outcomes);
  }

  private void notifyApplied(List<Outcome> outcomes) {
    for (Outcome outcome : outcomes) {
      if (outcome == Outcome.APPLIED) {
        notifyApplied();
      }
    }
  }

  /**
   * Processes one message; a failure that escapes the processor (its handler failures do not: it
   * retries and dead-letters them itself) is retried with the processor's retry policy, then the
   * message is dead-lettered like any other. Left unacknowledged instead, it would stall its
   * aggregate — and on Kafka every later offset of its partition — until a restart, silently.
   */
  private void processOrDeadLetter(Decoded next) {
    processOrDeadLetter(next, 0);
  }

  /** {@link #processOrDeadLetter(Decoded)} after {@code failedBefore} failures. */
  private void processOrDeadLetter(Decoded next, int failedBefore) {
    int failures = failedBefore;
    while (!stopping) {
      try {
        if (processor.process(next, () -> stopping) == Outcome.APPLIED) {
          notifyApplied();
        }
        return;
      } catch (FaultInjector.SimulatedCrash crash) {
        throw crash;
      } catch (RuntimeException | Error e) {
        failures++;
        laneFailures.increment();
        if (processor.mayRetry(failures)) {
          LOG.error(
              "consumer {}: lane {} failed on {} (attempt {}); retrying",
              processor.consumer(),
              lane(next),
              next.message().origin(),
              failures,
              e);
          if (!sleep(processor.retryDelay(failures))) {
            return;
          }
          continue;
        }
        LOG.error(
            "consumer {}: lane {} failed on {} {} times; dead-lettering it",
            processor.consumer(),
            lane(next),
            next.message().origin(),
            failures,
            e);
        deadLetter(next, e, failures);
        return;
      }
    }
  }

  private void deadLetter(Decoded next, Throwable failure, int failures) {
    try {
      processor.deadLetterFailure(next, failure, failures, () -> stopping);
    } catch (FaultInjector.SimulatedCrash crash) {
      throw crash;
    } catch (RuntimeException | Error last) {
      LOG.error(
          "consumer {}: could not dead-letter {}; it is left for redelivery",
          processor.consumer(),
          next.message().origin(),
          last);
    }
  }

  private int lane(Decoded d) {
    return Math.floorMod(d.laneKey().hashCode(), lanes.size());
  }

  private boolean sleep(Duration delay) {
    long deadline = System.nanoTime() + delay.toNanos();
    while (!stopping) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return true;
      }
      try {
        Thread.sleep(Math.min(50, Math.max(1, left / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  /** Failures that escaped the processor and were retried or dead-lettered by a lane. */
  public long laneFailures() {
    return (long) laneFailures.count();
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
