package io.tandem.saga;

import io.tandem.core.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A saga type: its steps, top to bottom, and how failures are handled. Built once, immutable.
 *
 * <pre>{@code
 * SagaDefinition<Checkout> checkout = SagaDefinition.builder("checkout", Checkout.class)
 *     .compensatable("create-order", "order", "CreatePendingOrder", "CancelOrder")
 *     .compensatable("authorize-payment", "payment", "AuthorizePayment", "RefundPayment")
 *     .pivot("reserve-inventory", "inventory", "ReserveInventory")
 *     .retriable("request-shipping", "shipping", "RequestShipping")
 *     .stepTimeout(Duration.ofSeconds(30))
 *     .build();
 * }</pre>
 *
 * <p>Each step sends a command to a participant (the participant's name is the aggregate type of
 * the command event, so the broker routes it to that participant) and waits for its reply. The
 * command's payload is the saga data as JSON; a success reply's JSON fields are merged into the
 * data (so a later step sees, say, the payment id). Rules checked by {@link Builder#build()}:
 * unique step names, at least one step, compensatable steps first, then at most one pivot, then
 * retriable steps; every compensatable step names its compensation.
 *
 * <p>Defaults: step timeout {@value #DEFAULT_STEP_TIMEOUT_SECONDS} s, forward attempts 3 (a
 * compensatable step or the pivot is re-sent after a timeout, then compensated), retry policy for
 * retriable steps and compensations {@link #DEFAULT_RETRY_POLICY}, compensation attempts 10 before
 * the saga becomes {@link SagaStatus#STUCK}, no saga timeout, compensations in strict reverse
 * order.
 *
 * @param <D> the saga data: a JSON object type (a record or bean Jackson can read and write)
 */
public final class SagaDefinition<D> {
  public static final long DEFAULT_STEP_TIMEOUT_SECONDS = 30;

  /** 200 ms base, 30 s cap, full jitter; attempts are limited by the saga's own settings. */
  public static final RetryPolicy DEFAULT_RETRY_POLICY =
      RetryPolicy.builder()
          .base(Duration.ofMillis(200))
          .cap(Duration.ofSeconds(30))
          .maxAttempts(Integer.MAX_VALUE)
          .build();

  /** One step of a saga. */
  public record Step(
      int index,
      String name,
      StepKind kind,
      String participant,
      String command,
      Optional<String> compensation) {}

  private final String type;
  private final Class<D> dataType;
  private final List<Step> steps;
  private final Duration stepTimeout;
  private final Optional<Duration> sagaTimeout;
  private final int forwardAttempts;
  private final int compensationAttempts;
  private final RetryPolicy retryPolicy;
  private final boolean parallelCompensation;

  private SagaDefinition(Builder<D> b) {
    this.type = b.type;
    this.dataType = b.dataType;
    this.steps = List.copyOf(b.steps);
    this.stepTimeout = b.stepTimeout;
    this.sagaTimeout = Optional.ofNullable(b.sagaTimeout);
    this.forwardAttempts = b.forwardAttempts;
    this.compensationAttempts = b.compensationAttempts;
    this.retryPolicy = b.retryPolicy;
    this.parallelCompensation = b.parallelCompensation;
  }

  public static <D> Builder<D> builder(String sagaType, Class<D> dataType) {
    return new Builder<>(sagaType, dataType);
  }

  public String type() {
    return type;
  }

  public Class<D> dataType() {
    return dataType;
  }

  public List<Step> steps() {
    return steps;
  }

  public Step step(int index) {
    return steps.get(index);
  }

  public Duration stepTimeout() {
    return stepTimeout;
  }

  public Optional<Duration> sagaTimeout() {
    return sagaTimeout;
  }

  public int forwardAttempts() {
    return forwardAttempts;
  }

  public int compensationAttempts() {
    return compensationAttempts;
  }

  public RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  public boolean parallelCompensation() {
    return parallelCompensation;
  }

  /** The index of the pivot, or -1 when the saga has none. */
  public int pivotIndex() {
    for (Step s : steps) {
      if (s.kind() == StepKind.PIVOT) {
        return s.index();
      }
    }
    return -1;
  }

  /** Builds a {@link SagaDefinition}; steps are listed in the order they run. */
  public static final class Builder<D> {
    private final String type;
    private final Class<D> dataType;
    private final List<Step> steps = new ArrayList<>();
    private Duration stepTimeout = Duration.ofSeconds(DEFAULT_STEP_TIMEOUT_SECONDS);
    private Duration sagaTimeout;
    private int forwardAttempts = 3;
    private int compensationAttempts = 10;
    private RetryPolicy retryPolicy = DEFAULT_RETRY_POLICY;
    private boolean parallelCompensation;

    private Builder(String type, Class<D> dataType) {
      this.type = type;
      this.dataType = dataType;
    }

    /**
     * A step that can be undone: {@code command} goes to {@code participant}; if the saga fails at
     * or before the pivot, {@code compensation} goes to the same participant.
     */
    public Builder<D> compensatable(
        String name, String participant, String command, String compensation) {
      return add(name, StepKind.COMPENSATABLE, participant, command, compensation);
    }

    /** The point of no return: once it succeeds, the saga completes. */
    public Builder<D> pivot(String name, String participant, String command) {
      return add(name, StepKind.PIVOT, participant, command, null);
    }

    /** A step after the pivot, retried with backoff until it succeeds. */
    public Builder<D> retriable(String name, String participant, String command) {
      return add(name, StepKind.RETRIABLE, participant, command, null);
    }

    private Builder<D> add(
        String name, StepKind kind, String participant, String command, String compensation) {
      steps.add(
          new Step(
              steps.size(), name, kind, participant, command, Optional.ofNullable(compensation)));
      return this;
    }

    /** How long a step may wait for its reply; default 30 s. */
    public Builder<D> stepTimeout(Duration stepTimeout) {
      this.stepTimeout = stepTimeout;
      return this;
    }

    /**
     * How long the whole saga may run before it is compensated (only while no pivot succeeded);
     * default none.
     */
    public Builder<D> sagaTimeout(Duration sagaTimeout) {
      this.sagaTimeout = sagaTimeout;
      return this;
    }

    /**
     * How many times a compensatable step or the pivot is sent when its reply does not come in time
     * before the saga compensates; default 3.
     */
    public Builder<D> forwardAttempts(int forwardAttempts) {
      this.forwardAttempts = forwardAttempts;
      return this;
    }

    /** How many times a failing compensation is tried before the saga is STUCK; default 10. */
    public Builder<D> compensationAttempts(int compensationAttempts) {
      this.compensationAttempts = compensationAttempts;
      return this;
    }

    /** Backoff between attempts of retriable steps and compensations. */
    public Builder<D> retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    /**
     * Send all compensations at once instead of one after the other in reverse order (only for
     * compensations that do not depend on each other); default false.
     */
    public Builder<D> parallelCompensation(boolean parallelCompensation) {
      this.parallelCompensation = parallelCompensation;
      return this;
    }

    /**
     * Validates the definition.
     *
     * @throws IllegalArgumentException naming the first rule broken
     */
    public SagaDefinition<D> build() {
      if (type == null || !type.matches("[A-Za-z0-9._-]{1,100}")) {
        throw new IllegalArgumentException(
            "saga type '" + type + "' is invalid: use 1 to 100 letters, digits, '.', '_' or '-'");
      }
      if (dataType == null) {
        throw new IllegalArgumentException("dataType must not be null");
      }
      if (steps.isEmpty()) {
        throw new IllegalArgumentException("saga '" + type + "' has no step");
      }
      Set<String> names = new HashSet<>();
      boolean pivotSeen = false;
      boolean retriableSeen = false;
      for (Step s : steps) {
        String where = "step '" + s.name() + "' of saga '" + type + "'";
        if (s.name() == null || s.name().isBlank() || !names.add(s.name())) {
          throw new IllegalArgumentException(where + ": step names must be unique and not blank");
        }
        if (s.participant() == null || s.participant().isBlank()) {
          throw new IllegalArgumentException(where + ": participant must not be blank");
        }
        if (s.command() == null || s.command().isBlank()) {
          throw new IllegalArgumentException(where + ": command must not be blank");
        }
        switch (s.kind()) {
          case COMPENSATABLE -> {
            if (pivotSeen || retriableSeen) {
              throw new IllegalArgumentException(
                  where
                      + ": a compensatable step cannot follow the pivot or a retriable step (it"
                      + " could never be compensated); move it before the pivot");
            }
            if (s.compensation().map(String::isBlank).orElse(true)) {
              throw new IllegalArgumentException(
                  where + ": a compensatable step needs its compensation");
            }
          }
          case PIVOT -> {
            if (pivotSeen) {
              throw new IllegalArgumentException(where + ": a saga has at most one pivot");
            }
            if (retriableSeen) {
              throw new IllegalArgumentException(
                  where + ": the pivot must come before retriable steps");
            }
            pivotSeen = true;
          }
          case RETRIABLE -> retriableSeen = true;
        }
      }
      if (stepTimeout == null || stepTimeout.isNegative() || stepTimeout.isZero()) {
        throw new IllegalArgumentException("stepTimeout must be positive, was " + stepTimeout);
      }
      if (sagaTimeout != null && (sagaTimeout.isNegative() || sagaTimeout.isZero())) {
        throw new IllegalArgumentException("sagaTimeout must be positive, was " + sagaTimeout);
      }
      if (forwardAttempts < 1 || compensationAttempts < 1) {
        throw new IllegalArgumentException(
            "forwardAttempts and compensationAttempts must be at least 1, were "
                + forwardAttempts
                + " and "
                + compensationAttempts);
      }
      if (retryPolicy == null) {
        throw new IllegalArgumentException("retryPolicy must not be null");
      }
      return new SagaDefinition<>(this);
    }
  }
}
