package io.tandem.saga;

/**
 * The three kinds of saga step. A saga is any number of compensatable steps, then at most one
 * pivot, then any number of retriable steps; {@link SagaDefinition.Builder#build()} refuses any
 * other order.
 */
public enum StepKind {
  /** Can be undone by a compensation command; failure at or before the pivot undoes these. */
  COMPENSATABLE,
  /** The point of no return: once it succeeds the saga completes; if it fails, compensate. */
  PIVOT,
  /** After the pivot: retried with backoff until it succeeds; never compensated. */
  RETRIABLE
}
