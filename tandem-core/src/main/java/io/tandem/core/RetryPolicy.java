package io.tandem.core;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with full jitter: before attempt {@code n} (n &ge; 2) wait a uniformly random
 * time in {@code [0, min(cap, base * 2^(n-2))]}. After {@link #maxAttempts()} failed attempts the
 * work is given up on (an outbox event is quarantined).
 *
 * <p>Defaults: base {@value #DEFAULT_BASE_MILLIS} ms, cap {@value #DEFAULT_CAP_SECONDS} s, {@value
 * #DEFAULT_MAX_ATTEMPTS} attempts. Immutable.
 *
 * <pre>{@code
 * RetryPolicy policy = RetryPolicy.builder().base(Duration.ofMillis(200)).maxAttempts(20).build();
 * }</pre>
 */
public final class RetryPolicy {
  public static final long DEFAULT_BASE_MILLIS = 100;
  public static final long DEFAULT_CAP_SECONDS = 60;
  public static final int DEFAULT_MAX_ATTEMPTS = 25;

  public static final RetryPolicy DEFAULTS = builder().build();

  private final Duration base;
  private final Duration cap;
  private final int maxAttempts;

  private RetryPolicy(Builder b) {
    this.base = b.base;
    this.cap = b.cap;
    this.maxAttempts = b.maxAttempts;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Duration base() {
    return base;
  }

  public Duration cap() {
    return cap;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  /** The upper bound of the random delay after {@code failedAttempts} failures (&ge; 1). */
  public Duration ceilingAfter(int failedAttempts) {
    int exponent = Math.max(0, Math.min(failedAttempts - 1, 40));
    long millis = base.toMillis();
    long ceiling =
        exponent >= 62 || millis > (Long.MAX_VALUE >> exponent)
            ? Long.MAX_VALUE
            : millis << exponent;
    return Duration.ofMillis(Math.min(ceiling, cap.toMillis()));
  }

  /** A random delay in {@code [0, ceilingAfter(failedAttempts)]} (full jitter). */
  public Duration delayAfter(int failedAttempts) {
    long ceiling = ceilingAfter(failedAttempts).toMillis();
    return Duration.ofMillis(ThreadLocalRandom.current().nextLong(ceiling + 1));
  }

  /** Whether another attempt is allowed after {@code failedAttempts} failures. */
  public boolean mayRetry(int failedAttempts) {
    return failedAttempts < maxAttempts;
  }

  /** Builds a {@link RetryPolicy}; base &gt; 0, cap &ge; base, maxAttempts &ge; 1. */
  public static final class Builder {
    private Duration base = Duration.ofMillis(DEFAULT_BASE_MILLIS);
    private Duration cap = Duration.ofSeconds(DEFAULT_CAP_SECONDS);
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;

    private Builder() {}

    public Builder base(Duration base) {
      this.base = base;
      return this;
    }

    public Builder cap(Duration cap) {
      this.cap = cap;
      return this;
    }

    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    public RetryPolicy build() {
      if (base == null || base.isNegative() || base.isZero()) {
        throw new IllegalArgumentException("base must be a positive duration, was " + base);
      }
      if (cap == null || cap.compareTo(base) < 0) {
        throw new IllegalArgumentException("cap must be at least base (" + base + "), was " + cap);
      }
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
      }
      return new RetryPolicy(this);
    }
  }
}
