package io.tandem.testkit.internal;

import java.security.SecureRandom;
import java.util.Locale;
import java.util.regex.Pattern;

/** Makes unique, valid PostgreSQL database names from a caller's prefix. */
public final class DatabaseNames {

  /** Longest accepted prefix: with {@code _} and the suffix it stays under PostgreSQL's 63. */
  public static final int MAX_PREFIX_LENGTH = 40;

  static final int SUFFIX_LENGTH = 12;

  private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]*");
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");
  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private DatabaseNames() {}

  /**
   * Returns {@code prefix + "_" + }12 random lowercase letters and digits. The prefix is
   * lower-cased, so {@code getClass().getSimpleName()} is a fine prefix.
   *
   * @throws IllegalArgumentException if the prefix is not a letter followed by letters, digits or
   *     underscores, or is longer than {@value #MAX_PREFIX_LENGTH} characters
   */
  public static String unique(String prefix) {
    if (prefix == null) {
      throw new IllegalArgumentException("Database name prefix must not be null");
    }
    String lower = prefix.toLowerCase(Locale.ROOT);
    if (!PREFIX.matcher(lower).matches() || lower.length() > MAX_PREFIX_LENGTH) {
      throw new IllegalArgumentException(
          "Invalid database name prefix '"
              + prefix
              + "': use a letter followed by letters, digits or underscores, at most "
              + MAX_PREFIX_LENGTH
              + " characters (for example 'outbox_relay_test')");
    }
    StringBuilder name = new StringBuilder(lower).append('_');
    for (int i = 0; i < SUFFIX_LENGTH; i++) {
      name.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return requireValid(name.toString());
  }

  /**
   * Returns {@code name} if it is a lowercase identifier that needs no quoting; such names are the
   * only ones this kit puts into {@code CREATE DATABASE} and {@code DROP DATABASE}.
   */
  public static String requireValid(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "Invalid database name '"
              + name
              + "': expected a lowercase letter followed by at most 62 lowercase letters, digits"
              + " or underscores");
    }
    return name;
  }
}
