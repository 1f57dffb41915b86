package io.tandem.redis.internal;

import java.util.Locale;
import java.util.regex.Pattern;

/** Tandem's rules for stream keys, checked before a key reaches Redis. */
public final class StreamKeys {
  private static final Pattern SANITIZE = Pattern.compile("[^a-z0-9._-]");

  private StreamKeys() {}

  /**
   * Returns {@code key} if it is non-empty and has no whitespace or control characters (Redis
   * accepts any bytes, but such keys are a mistake waiting to be made in every operator's shell).
   *
   * @throws IllegalArgumentException naming {@code parameter}, the value and the rule it breaks
   */
  public static String validate(String parameter, String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException(parameter + " must not be empty");
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        throw new IllegalArgumentException(
            parameter + " '" + key + "' contains whitespace or a control character at index " + i);
      }
    }
    return key;
  }

  /** Lowercases {@code name} and replaces every character outside {@code [a-z0-9._-]} by '-'. */
  public static String sanitize(String name) {
    return SANITIZE.matcher(name.toLowerCase(Locale.ROOT)).replaceAll("-");
  }
}
