package io.tandem.cdc.internal;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.tandem.core.ErrorSummary;
import io.tandem.core.TandemException;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Debezium's embedded engine on a thread of its own: started with the relay's {@link
 * EngineConfig} and {@link RecordHandler}, it reports when its task started, when it stopped, and
 * why, if it failed (a failure while the relay closes is not one). Thread-safe.
 */
public final class EngineRunner {
  private static final Logger log = LoggerFactory.getLogger(EngineRunner.class);

  private final String relayId;
  private final BooleanSupplier closing;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final CountDownLatch started = new CountDownLatch(1);
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean running;
  private DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private ExecutorService executor;

  public EngineRunner(String relayId, BooleanSupplier closing) {
    this.relayId = relayId;
    this.closing = closing;
  }

  /** Builds the engine and starts it on a thread of {@code threads}. */
  public synchronized void start(Properties config, RecordHandler handler, ThreadFactory threads) {
    engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(config)
            .using(
                new DebeziumEngine.ConnectorCallback() {
                  @Override
                  public void taskStarted() {
                    running = true;
                    started.countDown();
                  }
                })
            .using(
                (success, message, error) -> {
                  running = false;
                  if (!success && !closing.getAsBoolean()) {
                    failure.set(error != null ? error : new TandemException(message));
                    log.error("CDC relay {} stopped: {}", relayId, message, error);
                  }
                  started.countDown();
                  stopped.countDown();
                })
            .notifying(handler)
            .build();
    executor = Executors.newSingleThreadExecutor(threads);
    executor.execute(engine);
  }

  /** Waits until the engine's task started or the engine stopped; false on timeout. */
  public boolean awaitStarted(Duration timeout) throws InterruptedException {
    return started.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Waits until the engine stopped (closed or failed). */
  public boolean awaitStopped(Duration timeout) throws InterruptedException {
    return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public boolean running() {
    return running;
  }

  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure.get());
  }

  /** Closes the engine, which stores its last acknowledged position, and lets its thread end. */
  public synchronized void close() {
    if (engine != null) {
      try {
        engine.close();
      } catch (IOException e) {
        log.warn("CDC relay {}: closing the engine failed: {}", relayId, ErrorSummary.of(e));
      }
    }
    if (executor != null) {
      // the engine's own thread ends once it flushed its last position: let it, do not interrupt it
      executor.shutdown();
      try {
        executor.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    running = false;
  }
}
