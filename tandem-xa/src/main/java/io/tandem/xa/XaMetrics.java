package io.tandem.xa;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes two-phase commit's health as gauges, refreshed from {@link XaOperations#status()} on a
 * schedule: an in-doubt branch holds its locks until someone finishes it, so its age is what to
 * alert on.
 *
 * <ul>
 *   <li>{@code tandem.xa.in.doubt.oldest.age} (seconds; 0 when none) — the oldest prepared branch
 *       of Tandem's on any participant. A healthy coordinator keeps each branch prepared for
 *       milliseconds; the alert rule in {@code io/tandem/xa/alerts.yml} fires past five minutes;
 *   <li>{@code tandem.xa.in.doubt} — Tandem's prepared branches;
 *   <li>{@code tandem.xa.prepared.foreign} — prepared transactions that are not Tandem's (never
 *       touched by it: an operator's business);
 *   <li>{@code tandem.xa.heuristic} — decisions with a heuristic outcome noted, kept until cleared;
 *   <li>{@code tandem.xa.participants.unreachable} — participants the last refresh could not list.
 * </ul>
 *
 * With a coordinator given, also {@code tandem.xa.transactions} (counter, tag {@code outcome}) and
 * {@code tandem.xa.one.phase} (counter). A refresh that fails is logged and the previous values
 * stay. One daemon thread; {@link #close()} stops it.
 */
public final class XaMetrics implements AutoCloseable {
  /** How often the gauges are refreshed by default. */
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(15);

  private static final Logger log = LoggerFactory.getLogger(XaMetrics.class);

  private final XaOperations operations;
  private final AtomicReference<XaStatus> last = new AtomicReference<>();
  private final ScheduledExecutorService scheduler;

  private XaMetrics(
      MeterRegistry registry, XaOperations operations, XaCoordinator coordinator, Duration every) {
    this.operations = operations;
    gauge(
        registry,
        "tandem.xa.in.doubt.oldest.age",
        "Age in seconds of the oldest prepared branch of Tandem's (0 when none)",
        s -> s.oldestInDoubt().map(d -> d.toMillis() / 1000.0).orElse(0.0));
    gauge(
        registry,
        "tandem.xa.in.doubt",
        "Prepared branches of Tandem's",
        s -> s.tandemBranches().size());
    gauge(
        registry,
        "tandem.xa.prepared.foreign",
        "Prepared transactions that are not Tandem's",
        s -> s.branches().size() - s.tandemBranches().size());
    gauge(
        registry,
        "tandem.xa.heuristic",
        "Decisions with a heuristic outcome, kept until an operator clears them",
        s -> s.heuristics().size());
    gauge(
        registry,
        "tandem.xa.participants.unreachable",
        "Participants the last refresh could not list",
        s -> s.participants().stream().filter(p -> !p.reachable()).count());
    if (coordinator != null) {
      for (XaOutcome outcome : XaOutcome.values()) {
        FunctionCounter.builder("tandem.xa.transactions", coordinator, c -> c.count(outcome))
            .tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT))
            .description("Two-phase transactions that ended, by outcome")
            .register(registry);
      }
      FunctionCounter.builder("tandem.xa.one.phase", coordinator, XaCoordinator::onePhaseCommits)
          .description("Transactions committed in one phase (at most one branch wrote)")
          .register(registry);
    }
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-xa-metrics");
              t.setDaemon(true);
              return t;
            });
    refresh();
    scheduler.scheduleWithFixedDelay(
        this::refresh, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Registers the gauges (and, when {@code coordinator} is not null, its counters) and refreshes
   * them every {@code refresh}.
   */
  public static XaMetrics register(
      MeterRegistry registry,
      XaOperations operations,
      XaCoordinator coordinator,
      Duration refresh) {
    if (refresh == null || refresh.isNegative() || refresh.isZero()) {
      throw new IllegalArgumentException("refresh must be a positive duration, was " + refresh);
    }
    return new XaMetrics(registry, operations, coordinator, refresh);
  }

  /** The status read by the last successful refresh, or null before the first. */
  public XaStatus lastStatus() {
    return last.get();
  }

  private void refresh() {
    try {
      last.set(operations.status());
    } catch (RuntimeException e) {
      log.warn("refreshing XA metrics failed; keeping the previous values: {}", e.getMessage());
    }
  }

  private void gauge(
      MeterRegistry registry, String name, String description, ToDoubleFunction<XaStatus> value) {
    Gauge.builder(
            name, last, ref -> ref.get() == null ? Double.NaN : value.applyAsDouble(ref.get()))
        .description(description)
        .register(registry);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
