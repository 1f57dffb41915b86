package io.tandem.saga.internal;

/** What moves a saga instance on: a participant's reply, or its wake-up time coming. */
public sealed interface SagaInput {
  /**
   * A reply to a command that was still pending (the orchestrator has closed it in the step log).
   *
   * @param step the step's name
   * @param compensation whether it answers a compensation
   * @param succeeded success or business failure
   * @param payload the reply's JSON payload (fields to merge, or the failure's reason)
   */
  record Reply(String step, boolean compensation, boolean succeeded, String payload)
      implements SagaInput {}

  /**
   * The instance's wake-up time came.
   *
   * @param timedOut whether commands it was waiting for were still unanswered (the orchestrator has
   *     closed them as timed out); false for a retry's wake-up after a failure reply
   */
  record Timer(boolean timedOut) implements SagaInput {}

  /** An operator put a STUCK instance back to compensating. */
  record OperatorRetry() implements SagaInput {}
}
