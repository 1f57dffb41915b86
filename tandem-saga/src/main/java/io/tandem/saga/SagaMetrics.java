package io.tandem.saga;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import io.tandem.saga.internal.SagaRows;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes what an orchestrator's database holds as gauges, refreshed on a schedule, so that a
 * STUCK saga is seen by whoever scrapes any process that watches the database (an orchestrator, the
 * dashboard):
 *
 * <ul>
 *   <li>{@code tandem.saga.instances{type,status}} — saga instances per type and status (finished
 *       ones until {@link SagaRetention} removes them);
 *   <li>{@code tandem.saga.stuck} — instances in {@link SagaStatus#STUCK}: each one waits for an
 *       operator ({@code tandem saga retry-stuck});
 *   <li>{@code tandem.saga.stuck.oldest.age} (seconds) — how long the oldest STUCK instance has not
 *       changed; 0 when none.
 * </ul>
 *
 * <pre>{@code
 * SagaMetrics metrics = SagaMetrics.register(registry, orchestratorDb, Duration.ofSeconds(15));
 * ...
 * metrics.close(); // stops refreshing
 * }</pre>
 *
 * <p>Each refresh runs one grouped count over {@code tandem_saga}. A refresh that fails is logged
 * and the previous values stay. Ages use this process's clock against the database's {@code
 * updated_at}. One daemon thread ({@code tandem-saga-metrics}); thread-safe.
 */
public final class SagaMetrics implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SagaMetrics.class);

  private final DataSource dataSource;
  private final Dialect dialect;
  private final Clock clock;
  private final MultiGauge instances;
  private final AtomicReference<List<Group>> last = new AtomicReference<>();
  private final ScheduledExecutorService scheduler;

  private SagaMetrics(
      MeterRegistry registry, DataSource dataSource, Duration refresh, Clock clock) {
    this.dataSource = dataSource;
    this.dialect = Dialect.of(dataSource);
    this.clock = clock;
    this.instances =
        MultiGauge.builder("tandem.saga.instances")
            .description("Saga instances per type and status")
            .register(registry);
    Gauge.builder(
            "tandem.saga.stuck",
            last,
            ref -> stuck(ref.get()).stream().mapToLong(Group::instances).sum())
        .description("Saga instances in STUCK, each waiting for an operator")
        .register(registry);
    Gauge.builder("tandem.saga.stuck.oldest.age", last, ref -> oldestStuckAge(ref.get()))
        .description("Seconds since the oldest STUCK saga last changed (0 when none)")
        .register(registry);
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-saga-metrics");
              t.setDaemon(true);
              return t;
            });
    refresh();
    scheduler.scheduleWithFixedDelay(
        this::refresh, refresh.toMillis(), refresh.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Registers the gauges on {@code registry} and refreshes them from {@code dataSource} (an
   * orchestrator's database, PostgreSQL or MariaDB) now and every {@code refresh}.
   *
   * @throws IllegalArgumentException when {@code refresh} is not positive
   */
  public static SagaMetrics register(
      MeterRegistry registry, DataSource dataSource, Duration refresh) {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(dataSource, "dataSource");
    if (refresh == null || refresh.isNegative() || refresh.isZero()) {
      throw new IllegalArgumentException("refresh must be a positive duration, was " + refresh);
    }
    return new SagaMetrics(registry, dataSource, refresh, Clock.systemUTC());
  }

  /** Reads the counts now (the scheduled refresh does the same); failures are logged. */
  public void refresh() {
    try {
      List<Group> groups = read();
      last.set(groups);
      instances.register(
          groups.stream()
              .map(
                  g ->
                      MultiGauge.Row.of(
                          Tags.of("type", g.type(), "status", g.status().name()), g.instances()))
              .toList(),
          true);
    } catch (RuntimeException e) {
      log.warn("refreshing saga metrics failed; keeping the previous values: {}", e.getMessage());
    }
  }

  private List<Group> read() {
    try {
      return Transactions.inTransaction(
          dataSource,
          conn ->
              SagaRows.counts(
                  conn,
                  rs -> {
                    List<Group> out = new ArrayList<>();
                    while (rs.next()) {
                      out.add(
                          new Group(
                              rs.getString("saga_type"),
                              SagaStatus.valueOf(rs.getString("status")),
                              rs.getLong("instances"),
                              dialect.readInstant(rs, "oldest_update")));
                    }
                    return out;
                  }));
    } catch (SQLException e) {
      throw new JdbcException("counting sagas failed", e);
    }
  }

  private static List<Group> stuck(List<Group> groups) {
    return groups == null
        ? List.of()
        : groups.stream().filter(g -> g.status() == SagaStatus.STUCK).toList();
  }

  private double oldestStuckAge(List<Group> groups) {
    if (groups == null) {
      return Double.NaN;
    }
    Instant now = clock.instant();
    return stuck(groups).stream()
        .mapToDouble(g -> Math.max(0, Duration.between(g.oldestUpdate(), now).toMillis() / 1000.0))
        .max()
        .orElse(0);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }

  private record Group(String type, SagaStatus status, long instances, Instant oldestUpdate) {}
}
