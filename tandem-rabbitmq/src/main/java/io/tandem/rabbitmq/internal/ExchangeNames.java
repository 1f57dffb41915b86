package io.tandem.rabbitmq.internal;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/** AMQP 0-9-1's rules for exchange names and routing keys, checked before they reach the client. */
public final class ExchangeNames {
  /** Exchange names and routing keys are AMQP short strings: at most 255 bytes of UTF-8. */
  public static final int MAX_BYTES = 255;

  private static final Pattern SANITIZE = Pattern.compile("[^a-z0-9._-]");

  private ExchangeNames() {}

  /**
   * Returns {@code exchange} if RabbitMQ accepts it as the name of an exchange Tandem publishes to.
   * The default exchange ({@code ""}) is refused: it routes by queue name, and Tandem's routing key
   * is the aggregate id.
   *
   * @throws IllegalArgumentException naming {@code parameter}, the value and the rule it breaks
   */
  public static String validate(String parameter, String exchange) {
    if (exchange == null || exchange.isEmpty()) {
      throw new IllegalArgumentException(
          parameter
              + " must not be empty (the default exchange routes by queue name, but Tandem's"
              + " routing key is the aggregate id)");
    }
    shortString(parameter, exchange);
    return exchange;
  }

  /**
   * Returns {@code value} if it fits an AMQP short string (at most 255 bytes of UTF-8, no control
   * characters).
   *
   * @throws IllegalArgumentException naming {@code parameter} and the value
   */
  public static String shortString(String parameter, String value) {
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_BYTES) {
      throw new IllegalArgumentException(
          parameter
              + " '"
              + value
              + "' is "
              + bytes
              + " bytes of UTF-8; AMQP allows at most "
              + MAX_BYTES);
    }
    if (value.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException(
          parameter + " '" + value.replaceAll("\\p{Cntrl}", "?") + "' has control characters");
    }
    return value;
  }

  /** Lowercases {@code name} and replaces every character outside {@code [a-z0-9._-]} by '-'. */
  public static String sanitize(String name) {
    return SANITIZE.matcher(name.toLowerCase(Locale.ROOT)).replaceAll("-");
  }
}
