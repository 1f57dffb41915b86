package io.tandem.spring;

import io.tandem.inbox.AggregateGap;
import io.tandem.inbox.InboxOperations;
import io.tandem.saga.SagaInstance;
import io.tandem.saga.SagaQueries;
import io.tandem.saga.SagaStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Work that waits for an operator, independent of any Boot version: DOWN when a saga is {@code
 * STUCK} or when one of {@code consumers} has a gap older than {@code maxGapAge} (an aggregate
 * whose next version has not arrived: a skipped or lost event, see {@code tandem inbox advance});
 * open dead letters of those consumers are reported in the details without turning health DOWN (a
 * poison event is isolated: the rest of the stream flows). The same conditions as the shipped alert
 * rules.
 */
public final class StuckWorkHealth {
  private static final int LIMIT = 1_000;

  private final SagaQueries sagas;
  private final InboxOperations inbox;
  private final java.util.function.Supplier<List<String>> consumers;
  private final Duration maxGapAge;

  public StuckWorkHealth(
      SagaQueries sagas, InboxOperations inbox, List<String> consumers, Duration maxGapAge) {
    this(sagas, inbox, supplierOf(List.copyOf(consumers)), maxGapAge);
  }

  private static java.util.function.Supplier<List<String>> supplierOf(List<String> list) {
    return () -> list;
  }

  /**
   * @param consumers the consumers to report, read on every check (the starter adds those it runs)
   */
  public StuckWorkHealth(
      SagaQueries sagas,
      InboxOperations inbox,
      java.util.function.Supplier<List<String>> consumers,
      Duration maxGapAge) {
    this.sagas = Objects.requireNonNull(sagas, "sagas");
    this.inbox = Objects.requireNonNull(inbox, "inbox");
    this.consumers = Objects.requireNonNull(consumers, "consumers");
    this.maxGapAge = Objects.requireNonNull(maxGapAge, "maxGapAge");
  }

  /** Reads the saga and inbox tables now (short reads, capped at 1,000 rows each) and decides. */
  public BacklogHealth.Result check() {
    Map<String, Object> details = new LinkedHashMap<>();
    List<SagaInstance> stuck =
        sagas.list(null, SagaStatus.STUCK, Instant.now().plusSeconds(1), LIMIT);
    details.put("stuckSagas", stuck.size());
    StringBuilder reason = new StringBuilder();
    if (!stuck.isEmpty()) {
      reason.append(stuck.size()).append(stuck.size() == 1 ? " saga is" : " sagas are");
      reason.append(" STUCK (tandem saga list --status stuck; then retry-stuck)");
    }
    Map<String, Object> perConsumer = new LinkedHashMap<>();
    for (String consumer : consumers.get()) {
      List<AggregateGap> gaps = inbox.gaps(consumer, maxGapAge, LIMIT);
      long deadLetters = inbox.openDeadLetters(consumer);
      perConsumer.put(consumer, Map.of("overdueGaps", gaps.size(), "openDeadLetters", deadLetters));
      if (!gaps.isEmpty()) {
        if (reason.length() > 0) {
          reason.append("; ");
        }
        reason
            .append("consumer ")
            .append(consumer)
            .append(" has ")
            .append(gaps.size())
            .append(gaps.size() == 1 ? " gap" : " gaps")
            .append(" older than tandem.health.max-gap-age (")
            .append(maxGapAge.toSeconds())
            .append(" s): tandem inbox gaps --consumer ")
            .append(consumer);
      }
    }
    if (!perConsumer.isEmpty()) {
      details.put("consumers", perConsumer);
    }
    if (reason.length() > 0) {
      details.put("stuckWork", reason.toString());
    }
    return new BacklogHealth.Result(reason.length() == 0, details);
  }
}
