package io.tandem.core;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks a broker how far a source is behind, every interval, on a thread of its own, and keeps the
 * last answer: what a {@link io.tandem.core.spi.MessageSource#lag()} returns without blocking its
 * caller (a Prometheus scrape, the runner's gauge) on a broker round trip.
 *
 * <pre>{@code
 * LagProbe probe = LagProbe.start("tandem-rabbitmq-lag-billing", Duration.ofSeconds(5),
 *     () -> OptionalLong.of(channel.messageCount("billing") + unacknowledged()));
 * probe.last();   // the last reading; empty before the first and after a failed one
 * probe.close();
 * }</pre>
 *
 * <p>A reading that throws (broker unreachable, queue gone) is logged (a warning when a working
 * probe first fails, then at debug) and makes the lag unknown until a reading succeeds again: a
 * stale figure would look like a consumer that stopped moving. The thread is a daemon, named by the
 * caller. Thread-safe.
 */
public final class LagProbe implements AutoCloseable {
  /** How often sources ask their broker by default: 5 s, as the database gauges are refreshed. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(LagProbe.class);
  private static final long UNKNOWN = -1;

  private final String name;
  private final Callable<OptionalLong> reading;
  private final AtomicLong last = new AtomicLong(UNKNOWN);
  private final ScheduledExecutorService thread;
  private volatile boolean failing;
  private volatile boolean closed;

  private LagProbe(String name, Duration interval, Callable<OptionalLong> reading) {
    this.name = name;
    this.reading = reading;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, name);
              t.setDaemon(true);
              return t;
            });
    thread.scheduleWithFixedDelay(this::read, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Starts reading at once, then every {@code interval} after the previous reading ended.
   *
   * @param threadName the probe thread's name, e.g. {@code tandem-nats-lag-billing}
   * @param reading asks the broker; empty when it cannot tell; runs on the probe's thread only
   * @throws IllegalArgumentException if {@code interval} is not positive
   */
  public static LagProbe start(
      String threadName, Duration interval, Callable<OptionalLong> reading) {
    Objects.requireNonNull(threadName, "threadName");
    Objects.requireNonNull(reading, "reading");
    checkInterval("lagInterval", interval);
    return new LagProbe(threadName, interval, reading);
  }

  /**
   * Checks a lag interval for a builder.
   *
   * @throws IllegalArgumentException naming {@code parameter} if it is not a positive duration
   */
  public static Duration checkInterval(String parameter, Duration interval) {
    if (interval == null || interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          parameter + " must be a positive duration, e.g. PT5S, was " + interval);
    }
    return interval;
  }

  /** The last reading; empty before the first, after a failed one, and once closed. */
  public OptionalLong last() {
    long value = last.get();
    return value < 0 ? OptionalLong.empty() : OptionalLong.of(value);
  }

  private void read() {
    try {
      OptionalLong value = reading.call();
      if (closed) {
        return;
      }
      last.set(value != null && value.isPresent() ? Math.max(0, value.getAsLong()) : UNKNOWN);
      if (failing) {
        LOG.info("{}: reading the lag again", name);
        failing = false;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing
    } catch (Exception e) {
      if (closed) {
        return;
      }
      last.set(UNKNOWN);
      if (!failing) {
        LOG.warn("{}: cannot read the lag, it is unknown until it can: {}", name, e.toString());
        failing = true;
      } else {
        LOG.debug("{}: cannot read the lag: {}", name, e.toString());
      }
    }
  }

  /** Stops reading (interrupting a reading under way); the lag is unknown from now on. */
  @Override
  public void close() {
    closed = true;
    thread.shutdownNow();
    last.set(UNKNOWN);
  }
}
