package io.tandem.spring;

import io.tandem.inbox.InboxOperations;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.saga.SagaQueries;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The {@code tandem} health component, independent of any Boot version: {@link BacklogHealth} and
 * {@link StuckWorkHealth} together, configured by {@code tandem.health.*}. Each Boot line maps
 * {@link #check()} onto its own health API.
 */
public final class TandemHealth {
  private final BacklogHealth backlog;
  private final StuckWorkHealth stuckWork;

  public TandemHealth(BacklogHealth backlog, StuckWorkHealth stuckWork) {
    this.backlog = Objects.requireNonNull(backlog, "backlog");
    this.stuckWork = Objects.requireNonNull(stuckWork, "stuckWork");
  }

  /**
   * The component for {@code dataSource} as {@code properties} configure it.
   *
   * @param relay the application's running relay, or a supplier of null when it runs none
   */
  public static TandemHealth of(
      DataSource dataSource,
      OutboxOperations operations,
      TandemProperties properties,
      Supplier<OutboxRelay> relay) {
    return of(dataSource, operations, properties, relay, List::of);
  }

  /**
   * As {@link #of(DataSource, OutboxOperations, TandemProperties, Supplier)}, reporting {@code
   * tandem.health.consumers} and the consumers {@code running} names (those the starter runs).
   */
  public static TandemHealth of(
      DataSource dataSource,
      OutboxOperations operations,
      TandemProperties properties,
      Supplier<OutboxRelay> relay,
      Supplier<List<String>> running) {
    Supplier<List<String>> consumers =
        () -> {
          Set<String> all = new LinkedHashSet<>(properties.getHealth().getConsumers());
          all.addAll(running.get());
          return List.copyOf(all);
        };
    return new TandemHealth(
        new BacklogHealth(
            operations,
            properties.getHealth().getMaxOldestPendingAge(),
            relay,
            properties.getRelay().getLeaseDuration()),
        new StuckWorkHealth(
            SagaQueries.of(dataSource),
            InboxOperations.create(dataSource),
            consumers,
            properties.getHealth().getMaxGapAge()));
  }

  /** Up when the backlog and the stuck work both are; the details of both. */
  public BacklogHealth.Result check() {
    return backlog.check().and(stuckWork.check());
  }
}
