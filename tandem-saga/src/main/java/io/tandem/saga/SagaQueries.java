package io.tandem.saga;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import io.tandem.saga.internal.Participations;
import io.tandem.saga.internal.SagaMachine;
import io.tandem.saga.internal.SagaRow;
import io.tandem.saga.internal.SagaRows;
import io.tandem.saga.internal.StepLog;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The operator's view of the sagas in an orchestrator's database: list them, read one with its full
 * step log, put a {@link SagaStatus#STUCK} one back to compensating. It needs no saga definitions,
 * so a tool that is not an orchestrator (the {@code tandem saga} command) can use it; {@link
 * SagaOrchestrator#list}, {@link SagaOrchestrator#find} and {@link SagaOrchestrator#retryStuck} are
 * the same queries.
 *
 * <pre>{@code
 * SagaQueries sagas = SagaQueries.of(orchestratorDataSource);
 * sagas.list("checkout", SagaStatus.STUCK, Instant.now(), 50);
 * sagas.find(sagaId).ifPresent(s -> s.steps().forEach(System.out::println));
 * }</pre>
 *
 * <p>Reads are short transactions; {@link #retryStuck} locks the saga's row and checks its version
 * like every transition, so it is safe while orchestrators run. Thread-safe.
 */
public final class SagaQueries {
  private final DataSource dataSource;
  private final Dialect dialect;
  private final SagaRows rows;
  private final StepLog stepLog;
  private final Map<String, SagaDefinition<?>> definitions;
  private final Clock clock;

  SagaQueries(
      DataSource dataSource,
      Dialect dialect,
      Map<String, SagaDefinition<?>> definitions,
      Clock clock) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.rows = new SagaRows(dialect);
    this.stepLog = new StepLog(dialect);
    this.definitions = Map.copyOf(definitions);
    this.clock = clock;
  }

  /** The sagas in {@code dataSource}, an orchestrator's database (PostgreSQL or MariaDB). */
  public static SagaQueries of(DataSource dataSource) {
    Objects.requireNonNull(dataSource, "dataSource");
    return new SagaQueries(dataSource, Dialect.of(dataSource), Map.of(), Clock.systemUTC());
  }

  /**
   * The sagas in {@code dataSource} whose step names come from {@code definitions} (no extra read
   * per saga to name its current step, as {@link #of(DataSource)} needs for types it does not
   * know).
   */
  public static SagaQueries of(DataSource dataSource, Collection<SagaDefinition<?>> definitions) {
    Objects.requireNonNull(dataSource, "dataSource");
    Map<String, SagaDefinition<?>> byType = new HashMap<>();
    for (SagaDefinition<?> d : definitions) {
      byType.put(d.type(), d);
    }
    return new SagaQueries(dataSource, Dialect.of(dataSource), byType, Clock.systemUTC());
  }

  /**
   * How many sagas of {@code sagaType} are in each status, every status present (0 when none). One
   * grouped read of the saga table.
   */
  public Map<SagaStatus, Long> countByStatus(String sagaType) {
    Objects.requireNonNull(sagaType, "sagaType");
    Map<SagaStatus, Long> counts = new EnumMap<>(SagaStatus.class);
    for (SagaStatus s : SagaStatus.values()) {
      counts.put(s, 0L);
    }
    try (Connection c = dataSource.getConnection()) {
      return SagaRows.counts(
          c,
          rs -> {
            while (rs.next()) {
              if (sagaType.equals(rs.getString("saga_type"))) {
                counts.put(SagaStatus.valueOf(rs.getString("status")), rs.getLong("instances"));
              }
            }
            return counts;
          });
    } catch (SQLException e) {
      throw new JdbcException("counting the " + sagaType + " sagas failed", e);
    }
  }

  /**
   * Hands every saga instance of {@code sagaType} (null for any) to {@code each}, oldest first,
   * without their step logs: {@link #list} without its limit, for reports over a whole run.
   */
  public void forEach(String sagaType, Consumer<SagaInstance> each) {
    Objects.requireNonNull(each, "each");
    try {
      Transactions.inTransaction(
          dataSource,
          dialect.consumerIsolation(),
          conn -> {
            // started by now: a day ahead leaves room for the clocks of other orchestrators
            Instant startedBefore = clock.instant().plus(Duration.ofDays(1));
            for (SagaRow r : rows.list(conn, sagaType, null, startedBefore, Integer.MAX_VALUE)) {
              each.accept(view(conn, r, List.of()));
            }
            return null;
          });
    } catch (SQLException e) {
      throw new JdbcException("reading the sagas failed", e);
    }
  }

  /**
   * Saga instances by type and status (null for any) started before {@code startedBefore}, oldest
   * first, without their step logs.
   *
   * @throws IllegalArgumentException when {@code limit} is not between 1 and 10,000
   */
  public List<SagaInstance> list(
      String sagaType, SagaStatus status, Instant startedBefore, int limit) {
    if (limit < 1 || limit > 10_000) {
      throw new IllegalArgumentException("limit must be between 1 and 10000, was " + limit);
    }
    Objects.requireNonNull(startedBefore, "startedBefore");
    try {
      return Transactions.inTransaction(
          dataSource,
          dialect.consumerIsolation(),
          conn -> {
            List<SagaInstance> out = new ArrayList<>();
            for (SagaRow r : rows.list(conn, sagaType, status, startedBefore, limit)) {
              out.add(view(conn, r, List.of()));
            }
            return out;
          });
    } catch (SQLException e) {
      throw new JdbcException("listing sagas failed", e);
    }
  }

  /** One saga instance with its full step log. */
  public Optional<SagaInstance> find(UUID sagaId) {
    Objects.requireNonNull(sagaId, "sagaId");
    try {
      return Transactions.inTransaction(
          dataSource,
          dialect.consumerIsolation(),
          conn -> {
            Optional<SagaRow> row = rows.get(conn, sagaId);
            if (row.isEmpty()) {
              return Optional.<SagaInstance>empty();
            }
            return Optional.of(view(conn, row.get(), stepLog.steps(conn, sagaId)));
          });
    } catch (SQLException e) {
      throw new JdbcException("reading saga " + sagaId + " failed", e);
    }
  }

  /**
   * Puts a {@link SagaStatus#STUCK} saga back to compensating: its failed compensation is sent
   * again at once by the timer of a running orchestrator, with a fresh attempt budget.
   *
   * @throws IllegalArgumentException when there is no such saga
   * @throws IllegalStateException when the saga is not STUCK
   */
  public void retryStuck(UUID sagaId) {
    Objects.requireNonNull(sagaId, "sagaId");
    try {
      Transactions.inTransaction(
          dataSource,
          dialect.consumerIsolation(),
          conn -> {
            SagaRow row =
                rows.lock(conn, sagaId)
                    .orElseThrow(() -> new IllegalArgumentException("no saga " + sagaId));
            Instant now = clock.instant();
            if (!rows.update(conn, SagaMachine.retryStuck(row, now).next(), now)) {
              throw new IllegalStateException(
                  "saga " + sagaId + " changed while it was put back; read it again");
            }
            return null;
          });
    } catch (SQLException e) {
      throw new JdbcException("retrying saga " + sagaId + " failed", e);
    }
  }

  /**
   * How many saga steps the participant {@code participant} recorded in this database (a
   * participant's, not the orchestrator's): one per (saga, step) it handled, whatever it answered.
   */
  public long participationCount(String participant) {
    Objects.requireNonNull(participant, "participant");
    try {
      return Transactions.inTransaction(
          dataSource,
          dialect.consumerIsolation(),
          conn -> new Participations(dialect).count(conn, participant));
    } catch (SQLException e) {
      throw new JdbcException("counting the participations of " + participant + " failed", e);
    }
  }

  private SagaInstance view(Connection conn, SagaRow r, List<SagaStepRecord> steps)
      throws SQLException {
    return new SagaInstance(
        r.id(),
        r.type(),
        r.status(),
        currentStep(conn, r, steps),
        r.attempt(),
        r.data(),
        r.version(),
        r.startedAt(),
        r.updatedAt(),
        Optional.ofNullable(r.endedAt()),
        Optional.ofNullable(r.lastError()),
        steps);
  }

  /** The current step's name: from the definition, else from the step log. */
  private String currentStep(Connection conn, SagaRow r, List<SagaStepRecord> steps)
      throws SQLException {
    SagaDefinition<?> def = definitions.get(r.type());
    if (def != null && r.stepIndex() < def.steps().size()) {
      return def.step(r.stepIndex()).name();
    }
    for (int i = steps.size() - 1; i >= 0; i--) {
      if (steps.get(i).stepIndex() == r.stepIndex()) {
        return steps.get(i).step();
      }
    }
    return stepLog.stepName(conn, r.id(), r.stepIndex()).orElse(Integer.toString(r.stepIndex()));
  }
}
