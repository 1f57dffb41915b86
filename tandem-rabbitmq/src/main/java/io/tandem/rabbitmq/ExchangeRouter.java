package io.tandem.rabbitmq;

import io.tandem.core.Event;
import io.tandem.rabbitmq.internal.ExchangeNames;
import java.util.Objects;

/**
 * Chooses the RabbitMQ exchange of an event; the routing key is always the aggregate id. The
 * default, {@link #byAggregateType()}, gives each aggregate type its own exchange: {@code "tandem."
 * + aggregate type}, lowercased, with every character outside {@code [a-z0-9._-]} replaced by
 * {@code '-'} (aggregate type {@code Order} goes to {@code tandem.order}, {@code Stock Item} to
 * {@code tandem.stock-item}) — the same rule as the Kafka transport's topics.
 *
 * <pre>{@code
 * ExchangeRouter router = ExchangeRouter.byAggregateType("shop.");   // Order -> shop.order
 * ExchangeRouter audit = ExchangeRouter.fixed("audit-events");       // everything to one exchange
 * ExchangeRouter custom = event -> "tenant." + event.headers().tenant().orElse("none");
 * }</pre>
 *
 * <p>A router must return the name of an exchange that exists (or let the transport declare it, see
 * {@link RabbitTransport.Builder#declareExchanges(boolean)}): not empty, at most 255 bytes of
 * UTF-8. {@link RabbitTransport} reports an event whose router throws or returns an illegal name as
 * {@link io.tandem.core.ErrorClass#UNROUTABLE}. Implementations must be thread-safe and should be
 * pure functions of the event.
 */
@FunctionalInterface
public interface ExchangeRouter {
  /** The prefix of {@link #byAggregateType()}. */
  String DEFAULT_PREFIX = "tandem.";

  /** The exchange for {@code event}; never null or empty. */
  String exchangeFor(Event event);

  /** The default rule: {@code byAggregateType(DEFAULT_PREFIX)}. */
  static ExchangeRouter byAggregateType() {
    return byAggregateType(DEFAULT_PREFIX);
  }

  /**
   * One exchange per aggregate type: {@code prefix} + the aggregate type lowercased, with
   * characters outside {@code [a-z0-9._-]} replaced by {@code '-'}.
   *
   * @param prefix may be empty; no control characters, and short enough to leave room for a name
   * @throws IllegalArgumentException if {@code prefix} is null, too long or has control characters
   */
  static ExchangeRouter byAggregateType(String prefix) {
    Objects.requireNonNull(prefix, "prefix must not be null (use \"\" for no prefix)");
    ExchangeNames.shortString("prefix", prefix);
    if (prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
        >= ExchangeNames.MAX_BYTES) {
      throw new IllegalArgumentException(
          "prefix '"
              + prefix
              + "' leaves no room for the aggregate type within "
              + ExchangeNames.MAX_BYTES
              + " bytes");
    }
    return event ->
        ExchangeNames.validate("exchange", prefix + ExchangeNames.sanitize(event.aggregateType()));
  }

  /**
   * Every event to {@code exchange}.
   *
   * @throws IllegalArgumentException if {@code exchange} is empty (the default exchange, which
   *     routes by queue name), longer than 255 bytes of UTF-8, or has control characters
   */
  static ExchangeRouter fixed(String exchange) {
    ExchangeNames.validate("exchange", exchange);
    return event -> exchange;
  }
}
