package io.tandem.core;

/**
 * Named places in Tandem's code where a failure drill can make a process die or stall. Production
 * code calls {@link #reached(String)} at each point; the default {@link #NONE} does nothing, so a
 * fault point costs one interface call when no drill is active.
 *
 * <p>An injector that simulates the death of one component (rather than halting the JVM) throws
 * {@link SimulatedCrash}; components treat it as sudden death: they stop at once without any
 * clean-up that a killed process would not have done either (no lease release, no marking).
 */
@FunctionalInterface
public interface FaultInjector {
  /** The writing service committed its transaction. */
  String SERVICE_AFTER_COMMIT = "service.after-commit";

  /** The relay committed its claim of a batch and has not published yet. */
  String RELAY_AFTER_CLAIM = "relay.after-claim";

  /** The broker acknowledged a batch and the relay has not marked it published yet. */
  String RELAY_AFTER_ACK = "relay.after-ack";

  /** A consumer committed its local transaction and has not acknowledged the message yet. */
  String CONSUMER_AFTER_COMMIT = "consumer.after-commit";

  /** A saga orchestrator committed a step's transition (and the next command) and goes on. */
  String ORCHESTRATOR_AFTER_STEP = "orchestrator.after-step";

  /** A two-phase coordinator prepared every branch and has not logged its decision yet. */
  String XA_AFTER_PREPARE = "xa.after-prepare";

  /** A two-phase coordinator logged its commit decision and has not begun phase 2. */
  String XA_AFTER_DECISION = "xa.after-decision";

  /** A two-phase coordinator committed its first branch in phase 2, not the others yet. */
  String XA_MID_PHASE_TWO = "xa.mid-phase-two";

  /**
   * The CDC relay's broker acknowledged every event up to a position, and the relay is about to
   * store that position (its offset flush): the position is not durable yet.
   */
  String CDC_BEFORE_OFFSET_FLUSH = "cdc.before-offset-flush";

  /** Injects nothing. */
  FaultInjector NONE = point -> {};

  /**
   * Called when execution reaches {@code point}; may halt, stall or throw {@link SimulatedCrash}.
   */
  void reached(String point);

  /** Thrown by a fault injector to make one component die on the spot, as if killed. */
  final class SimulatedCrash extends Error {
    private static final long serialVersionUID = 1L;

    public SimulatedCrash(String point) {
      super("simulated crash at " + point, null, false, false);
    }
  }
}
