package io.tandem.examples.checkout;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.FaultInjector;
import io.tandem.saga.SagaOrchestrator;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * One running instance of the checkout orchestrator: the saga engine on the orchestrator's own
 * database, the relay that publishes its commands, the consumer of the participants' replies (one
 * group shared by all instances) and the timer that handles step deadlines and retries.
 *
 * <p>All of its state is in that database: an instance that dies — {@code kill -9} included —
 * leaves nothing behind that another instance cannot carry on. Its commands committed and not yet
 * published are published by the next relay to take the partitions (once its 3 s lease has
 * expired); replies it consumed and did not commit are delivered again to the group's next member;
 * due timers are claimed by any instance. {@link OrchestratorMain} runs one as its own process.
 */
public final class CheckoutOrchestrator implements AutoCloseable {
  /** The orchestrator's name: its inbox consumer name and, with the prefix, its group. */
  public static final String NAME = "checkout-orchestrator";

  private final SagaOrchestrator orchestrator;
  private final ServiceRuntime runtime;

  private CheckoutOrchestrator(SagaOrchestrator orchestrator, ServiceRuntime runtime) {
    this.orchestrator = orchestrator;
    this.runtime = runtime;
  }

  /**
   * Starts an instance: relay, reply consumer and timer.
   *
   * @param instance a name for this instance, unique among the running ones
   */
  public static CheckoutOrchestrator start(
      DataSource dataSource,
      KafkaTopology topology,
      Duration stepTimeout,
      Duration pollInterval,
      String instance) {
    return start(
        dataSource,
        topology,
        stepTimeout,
        pollInterval,
        instance,
        FaultInjector.NONE,
        new SimpleMeterRegistry());
  }

  /**
   * Starts an instance whose engine reaches {@code faults} at {@link
   * FaultInjector#ORCHESTRATOR_AFTER_STEP}, for failure drills.
   */
  public static CheckoutOrchestrator start(
      DataSource dataSource,
      KafkaTopology topology,
      Duration stepTimeout,
      Duration pollInterval,
      String instance,
      FaultInjector faults) {
    return start(
        dataSource,
        topology,
        stepTimeout,
        pollInterval,
        instance,
        faults,
        new SimpleMeterRegistry());
  }

  /**
   * Starts an instance whose engine, relay and reply consumer count into {@code meters} (sagas
   * started, their duration, compensations, the consumer's lag...).
   */
  public static CheckoutOrchestrator start(
      DataSource dataSource,
      KafkaTopology topology,
      Duration stepTimeout,
      Duration pollInterval,
      String instance,
      FaultInjector faults,
      MeterRegistry meters) {
    SagaOrchestrator orchestrator = engine(dataSource, stepTimeout, faults, meters);
    ServiceRuntime runtime =
        ServiceRuntime.start(
            "orchestrator",
            instance,
            dataSource,
            orchestrator.replyProcessor(),
            CheckoutSaga.REPLIES,
            topology,
            pollInterval,
            false,
            4,
            meters);
    orchestrator.startTimer();
    return new CheckoutOrchestrator(orchestrator, runtime);
  }

  /**
   * The saga engine on {@code dataSource} without relay, consumer or timer: enough to start sagas
   * (their first command waits in the outbox for a running instance's relay) and to read them.
   */
  public static SagaOrchestrator engine(DataSource dataSource, Duration stepTimeout) {
    return engine(dataSource, stepTimeout, FaultInjector.NONE, new SimpleMeterRegistry());
  }

  private static SagaOrchestrator engine(
      DataSource dataSource, Duration stepTimeout, FaultInjector faults, MeterRegistry meters) {
    return SagaOrchestrator.builder()
        .dataSource(dataSource)
        .meterRegistry(meters)
        .name(NAME)
        .replyTo(CheckoutSaga.REPLIES)
        .definition(CheckoutSaga.definition(stepTimeout))
        .timerInterval(Duration.ofMillis(100))
        .faultInjector(faults)
        .build();
  }

  /** The saga engine of this instance. */
  public SagaOrchestrator sagas() {
    return orchestrator;
  }

  public boolean isRunning() {
    return runtime.isRunning();
  }

  /** Whether its reply consumer was given partitions and its relay holds its share. */
  public boolean isReady() {
    return runtime.isReady();
  }

  @Override
  public void close() {
    try {
      orchestrator.close();
    } finally {
      runtime.close();
    }
  }
}
