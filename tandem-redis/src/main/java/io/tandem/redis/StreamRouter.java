package io.tandem.redis;

import io.tandem.core.Event;
import io.tandem.redis.internal.StreamKeys;
import java.util.Objects;

/**
 * Chooses the Redis stream key of an event. The default, {@link #byAggregateType()}, gives each
 * aggregate type its own stream: {@code "tandem:" + aggregate type}, lowercased, with every
 * character outside {@code [a-z0-9._-]} replaced by {@code '-'} (aggregate type {@code Order} goes
 * to {@code tandem:order}, {@code Stock Item} to {@code tandem:stock-item}).
 *
 * <pre>{@code
 * StreamRouter router = StreamRouter.byAggregateType("shop:");   // Order -> shop:order
 * StreamRouter audit = StreamRouter.fixed("audit-events");       // everything to one stream
 * StreamRouter custom = event -> "tenant:" + event.headers().tenant().orElse("none");
 * }</pre>
 *
 * <p>One stream per aggregate type keeps one aggregate's events in one stream, in publish order. A
 * router must return a non-empty key without whitespace or control characters; {@link
 * RedisStreamsTransport} checks it and reports an event whose router throws or returns an illegal
 * key as {@link io.tandem.core.ErrorClass#UNROUTABLE}. Implementations must be thread-safe and
 * should be pure functions of the event.
 */
@FunctionalInterface
public interface StreamRouter {
  /** The prefix of {@link #byAggregateType()}. */
  String DEFAULT_PREFIX = "tandem:";

  /** The stream key for {@code event}; never null. */
  String streamFor(Event event);

  /** The default rule: {@code byAggregateType(DEFAULT_PREFIX)}. */
  static StreamRouter byAggregateType() {
    return byAggregateType(DEFAULT_PREFIX);
  }

  /**
   * One stream per aggregate type: {@code prefix} + the aggregate type lowercased, with characters
   * outside {@code [a-z0-9._-]} replaced by {@code '-'}.
   *
   * @param prefix may be empty; no whitespace or control characters
   * @throws IllegalArgumentException if {@code prefix} is null or has illegal characters
   */
  static StreamRouter byAggregateType(String prefix) {
    Objects.requireNonNull(prefix, "prefix must not be null (use \"\" for no prefix)");
    if (!prefix.isEmpty()) {
      StreamKeys.validate("prefix", prefix);
    }
    return event -> prefix + StreamKeys.sanitize(event.aggregateType());
  }

  /**
   * Every event to stream {@code key}.
   *
   * @throws IllegalArgumentException if {@code key} is empty or has whitespace or control
   *     characters
   */
  static StreamRouter fixed(String key) {
    StreamKeys.validate("key", key);
    return event -> key;
  }
}
