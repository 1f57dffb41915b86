package io.tandem.kafka;

import io.tandem.core.Event;
import io.tandem.kafka.internal.TopicNames;
import java.util.Objects;

/**
 * Chooses the Kafka topic of an event. The default, {@link #byAggregateType()}, gives each
 * aggregate type its own topic: {@code "tandem." + aggregate type}, lowercased, with every
 * character outside {@code [a-z0-9._-]} replaced by {@code '-'} (aggregate type {@code Order} goes
 * to {@code tandem.order}, {@code Stock Item} to {@code tandem.stock-item}).
 *
 * <pre>{@code
 * TopicRouter router = TopicRouter.byAggregateType("shop.");       // Order -> shop.order
 * TopicRouter audit = TopicRouter.fixed("audit-events");           // everything to one topic
 * TopicRouter custom = event -> "tenant-" + event.headers().tenant().orElse("none");
 * }</pre>
 *
 * <p>A router must return a legal Kafka topic name (ASCII letters, digits, {@code .}, {@code _},
 * {@code -}; at most 249 characters); {@link KafkaTransport} checks the name and reports an event
 * whose router throws or returns an illegal name as {@link io.tandem.core.ErrorClass#UNROUTABLE}.
 * Implementations must be thread-safe and should be pure functions of the event.
 */
@FunctionalInterface
public interface TopicRouter {
  /** The prefix of {@link #byAggregateType()}. */
  String DEFAULT_PREFIX = "tandem.";

  /** The topic for {@code event}; never null. */
  String topicFor(Event event);

  /** The default rule: {@code byAggregateType(DEFAULT_PREFIX)}. */
  static TopicRouter byAggregateType() {
    return byAggregateType(DEFAULT_PREFIX);
  }

  /**
   * One topic per aggregate type: {@code prefix} + the aggregate type lowercased, with characters
   * outside {@code [a-z0-9._-]} replaced by {@code '-'}.
   *
   * @param prefix may be empty; only characters Kafka allows in a topic name
   * @throws IllegalArgumentException if {@code prefix} is null, too long or has illegal characters
   */
  static TopicRouter byAggregateType(String prefix) {
    Objects.requireNonNull(prefix, "prefix must not be null (use \"\" for no prefix)");
    if (!prefix.isEmpty()) {
      TopicNames.validate("prefix", prefix);
      if (prefix.length() >= TopicNames.MAX_LENGTH) {
        throw new IllegalArgumentException(
            "prefix '"
                + prefix
                + "' leaves no room for the aggregate type within "
                + TopicNames.MAX_LENGTH
                + " characters");
      }
    }
    return event ->
        TopicNames.validate("topic", prefix + TopicNames.sanitize(event.aggregateType()));
  }

  /**
   * Every event to {@code topic}.
   *
   * @throws IllegalArgumentException if {@code topic} is not a legal Kafka topic name
   */
  static TopicRouter fixed(String topic) {
    TopicNames.validate("topic", topic);
    return event -> topic;
  }
}
