package io.tandem.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.jdbc.JdbcException;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaOrchestrator;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The saga orchestrator of the application's {@link SagaDefinition} beans, with its lifecycle: on
 * start, the timer (step timeouts, retries) and a consumer of the replies ({@code
 * tandem.saga.reply-to}) from the {@link TandemBroker}; on stop, both end gracefully. The commands
 * leave through the application's outbox and relay.
 *
 * <pre>{@code
 * @Transactional
 * public void checkout(Order order) {
 *   jdbc.update("INSERT INTO orders ...");
 *   sagas.start("checkout", new Checkout(order.id(), order.amount()));  // same transaction
 * }
 * }</pre>
 */
public final class TandemSagas implements SmartLifecycle {
  private final DataSource dataSource;
  private final List<SagaDefinition<?>> definitions;
  private final String name;
  private final String replyTo;
  private final TandemProperties.Saga settings;
  private final Supplier<TandemBroker> broker;
  private final MeterRegistry meters;
  private final SagaOrchestrator starter;
  private SagaOrchestrator running;
  private ConsumerRunner replies;

  /**
   * @param applicationName the default name is {@code <applicationName>-sagas}
   * @param broker supplies the broker, or null when no transport is configured
   * @param meters where the orchestrator's metrics go, or null for none
   * @throws IllegalArgumentException naming the setting when the orchestrator cannot be built
   */
  public TandemSagas(
      DataSource dataSource,
      List<SagaDefinition<?>> definitions,
      TandemProperties.Saga settings,
      String applicationName,
      Supplier<TandemBroker> broker,
      MeterRegistry meters) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.definitions = List.copyOf(definitions);
    this.settings = Objects.requireNonNull(settings, "settings");
    this.name = settings.getName() != null ? settings.getName() : applicationName + "-sagas";
    this.replyTo = settings.getReplyTo() != null ? settings.getReplyTo() : name + "-replies";
    this.broker = Objects.requireNonNull(broker, "broker");
    this.meters = meters;
    this.starter = this.definitions.isEmpty() || !settings.isEnabled() ? null : build();
  }

  private SagaOrchestrator build() {
    SagaOrchestrator.Builder b =
        SagaOrchestrator.builder()
            .dataSource(dataSource)
            .name(name)
            .replyTo(replyTo)
            .timerInterval(settings.getTimerInterval());
    definitions.forEach(b::definition);
    if (meters != null) {
      b.meterRegistry(meters);
    }
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("tandem.saga: " + e.getMessage(), e);
    }
  }

  /** The orchestrator's name, its inbox consumer. */
  public String name() {
    return name;
  }

  /** The aggregate type participants reply to. */
  public String replyTo() {
    return replyTo;
  }

  /**
   * Starts a saga: inside the current Spring-managed transaction on the orchestrator's {@code
   * DataSource} when one is active (the saga and its first command commit with the caller's
   * change), else in a transaction of its own.
   *
   * @return the saga's id
   */
  public UUID start(String sagaType, Object data) {
    SagaOrchestrator o = orchestrator();
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      return o.start(sagaType, data);
    }
    Connection c = DataSourceUtils.getConnection(dataSource);
    try {
      return o.startIn(c, sagaType, data);
    } catch (SQLException e) {
      throw new JdbcException("starting saga " + sagaType + " failed", e);
    } finally {
      DataSourceUtils.releaseConnection(c, dataSource);
    }
  }

  /** The orchestrator, for queries and operator actions ({@code list}, {@code retryStuck}). */
  public SagaOrchestrator orchestrator() {
    if (starter == null) {
      throw new IllegalStateException(
          settings.isEnabled()
              ? "no saga is defined: declare a bean of type io.tandem.saga.SagaDefinition"
              : "sagas are switched off: tandem.saga.enabled=false");
    }
    return starter;
  }

  @Override
  public synchronized void start() {
    if (starter == null || running != null) {
      return;
    }
    TandemBroker b = broker.get();
    if (b == null) {
      throw new IllegalStateException(
          "SagaDefinition beans exist but there is no transport to receive the replies from: set"
              + " tandem.transport and its address (e.g. tandem.kafka.bootstrap-servers), or"
              + " tandem.saga.enabled=false");
    }
    SagaOrchestrator o = build();
    ConsumerRunner r =
        ConsumerRunner.builder()
            .source(b.source(name, List.of(replyTo)))
            .processor(o.replyProcessor())
            .build();
    r.start();
    o.startTimer();
    running = o;
    replies = r;
  }

  @Override
  public synchronized void stop() {
    ConsumerRunner r = replies;
    SagaOrchestrator o = running;
    replies = null;
    running = null;
    try {
      if (r != null) {
        r.close();
      }
    } finally {
      if (o != null) {
        o.close();
      }
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return running != null;
  }

  @Override
  public int getPhase() {
    return RelayLifecycle.DEFAULT_PHASE;
  }
}
