package io.tandem.spring;

import io.tandem.inbox.ConsumerRunner;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.context.SmartLifecycle;

/**
 * Starts a {@link ConsumerRunner} with the application context and closes it gracefully when the
 * context stops: the messages being applied finish and are acknowledged, the rest is left to
 * redelivery (the inbox makes it harmless).
 *
 * <p>Declare one bean per consumer; a new runner is built from {@code factory} on every start.
 *
 * <pre>{@code
 * @Bean
 * ConsumerRunnerLifecycle billingConsumer(DataSource dataSource) {
 *   return new ConsumerRunnerLifecycle(() -> ConsumerRunner.builder()
 *       .source(KafkaMessageSource.builder()...build())
 *       .processor(billingProcessor)
 *       .build());
 * }
 * }</pre>
 */
public final class ConsumerRunnerLifecycle implements SmartLifecycle {
  private final Supplier<ConsumerRunner> factory;
  private final int phase;
  private volatile ConsumerRunner runner;

  public ConsumerRunnerLifecycle(Supplier<ConsumerRunner> factory) {
    this(factory, RelayLifecycle.DEFAULT_PHASE);
  }

  public ConsumerRunnerLifecycle(Supplier<ConsumerRunner> factory, int phase) {
    this.factory = Objects.requireNonNull(factory, "factory");
    this.phase = phase;
  }

  @Override
  public synchronized void start() {
    if (runner == null) {
      ConsumerRunner r = factory.get();
      r.start();
      runner = r;
    }
  }

  @Override
  public synchronized void stop() {
    ConsumerRunner r = runner;
    runner = null;
    if (r != null) {
      r.close();
    }
  }

  @Override
  public boolean isRunning() {
    return runner != null;
  }

  @Override
  public int getPhase() {
    return phase;
  }

  /** The running runner, or null while stopped. */
  public ConsumerRunner runner() {
    return runner;
  }
}
