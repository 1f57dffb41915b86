package io.tandem.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.saga.SagaParticipant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the consumers the application declared: one runner per {@link TandemHandler#consumer()} name
 * over its annotated methods, and one per {@link SagaParticipant} bean on its commands. Each
 * consumer's source comes from the {@link TandemBroker}; its processor's ordering guard, retries
 * and dead letters from {@code tandem.consumer.*}. Stops gracefully with the context: the messages
 * being applied finish, the rest is redelivered.
 */
public final class TandemConsumers implements SmartLifecycle {
  private final DataSource dataSource;
  private final TandemHandlerMethods handlers;
  private final List<SagaParticipant> participants;
  private final Supplier<TandemBroker> broker;
  private final TandemProperties.Consumer settings;
  private final MeterRegistry meters;
  private final Map<String, ConsumerRunner> running = new LinkedHashMap<>();

  /**
   * @param broker supplies the broker, or null when no transport is configured
   * @param meters where the consumers' metrics go, or null for none
   */
  public TandemConsumers(
      DataSource dataSource,
      TandemHandlerMethods handlers,
      List<SagaParticipant> participants,
      Supplier<TandemBroker> broker,
      TandemProperties.Consumer settings,
      MeterRegistry meters) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.handlers = Objects.requireNonNull(handlers, "handlers");
    this.participants = List.copyOf(participants);
    this.broker = Objects.requireNonNull(broker, "broker");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.meters = meters;
  }

  /** The processors of the annotated handlers, by consumer name (built, not started). */
  public Map<String, InboxProcessor> handlerProcessors() {
    Map<String, List<HandlerMethod>> byConsumer = new LinkedHashMap<>();
    for (HandlerMethod h : handlers.handlers()) {
      byConsumer.computeIfAbsent(h.annotation().consumer(), k -> new ArrayList<>()).add(h);
    }
    Map<String, InboxProcessor> processors = new LinkedHashMap<>();
    byConsumer.forEach(
        (consumer, methods) -> {
          InboxProcessor.Builder b =
              InboxProcessor.builder()
                  .dataSource(dataSource)
                  .consumer(consumer)
                  .ordered(settings.isOrdered())
                  .retryPolicy(settings.retryPolicy())
                  .unknownEventTypes(settings.getUnknownEventTypes());
          Map<String, HandlerMethod> byType = new LinkedHashMap<>();
          for (HandlerMethod m : methods) {
            HandlerMethod other = byType.putIfAbsent(m.annotation().eventType(), m);
            if (other != null) {
              throw new IllegalStateException(
                  "consumer "
                      + consumer
                      + " has two @TandemHandler methods for event type "
                      + m.annotation().eventType()
                      + ": "
                      + other.describe()
                      + " and "
                      + m.describe()
                      + "; keep one");
            }
            b.on(m.annotation().eventType(), m.annotation().maxSchemaVersion(), m.work(dataSource));
          }
          if (meters != null) {
            b.meterRegistry(meters);
          }
          processors.put(consumer, b.build());
        });
    return processors;
  }

  private static List<String> aggregateTypes(List<HandlerMethod> methods, String consumer) {
    Set<String> types = new LinkedHashSet<>();
    for (HandlerMethod m : methods) {
      if (m.annotation().consumer().equals(consumer)) {
        types.add(m.annotation().aggregateType());
      }
    }
    return List.copyOf(types);
  }

  @Override
  public synchronized void start() {
    if (!running.isEmpty()) {
      return;
    }
    Map<String, InboxProcessor> processors = handlerProcessors();
    if (processors.isEmpty() && participants.isEmpty()) {
      return;
    }
    TandemBroker b = broker.get();
    if (b == null) {
      throw new IllegalStateException(
          "there are @TandemHandler methods or SagaParticipant beans but no transport to consume"
              + " from: set tandem.transport and its address (e.g. tandem.kafka.bootstrap-servers),"
              + " or tandem.consumer.enabled=false");
    }
    List<HandlerMethod> methods = handlers.handlers();
    try {
      processors.forEach(
          (consumer, processor) ->
              startRunner(
                  consumer, b.source(consumer, aggregateTypes(methods, consumer)), processor));
      for (SagaParticipant p : participants) {
        startRunner(p.name(), b.source(p.name(), List.of(p.name())), p.processor());
      }
    } catch (RuntimeException e) {
      stop();
      throw e;
    }
  }

  private void startRunner(
      String name, io.tandem.core.spi.MessageSource source, InboxProcessor processor) {
    if (running.containsKey(name)) {
      throw new IllegalStateException(
          "two consumers are named "
              + name
              + " (a @TandemHandler consumer and a saga participant?): give them different names");
    }
    ConsumerRunner.Builder rb =
        ConsumerRunner.builder()
            .source(source)
            .processor(processor)
            .concurrency(settings.getConcurrency());
    if (meters != null) {
      rb.meterRegistry(meters);
    }
    ConsumerRunner runner = rb.build();
    runner.start();
    running.put(name, runner);
  }

  @Override
  public synchronized void stop() {
    RuntimeException first = null;
    for (ConsumerRunner r : running.values()) {
      try {
        r.close();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    running.clear();
    if (first != null) {
      throw first;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return !running.isEmpty();
  }

  @Override
  public int getPhase() {
    return RelayLifecycle.DEFAULT_PHASE;
  }

  /** The names of the consumers this runs (or will run on start). */
  public List<String> consumerNames() {
    Set<String> names = new LinkedHashSet<>();
    handlers.handlers().forEach(h -> names.add(h.annotation().consumer()));
    participants.forEach(p -> names.add(p.name()));
    return List.copyOf(names);
  }

  /** The running runners by consumer name (empty while stopped). */
  public synchronized Map<String, ConsumerRunner> runners() {
    return Map.copyOf(running);
  }
}
