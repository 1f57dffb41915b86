package io.tandem.kafka.internal;

import java.util.Locale;
import java.util.regex.Pattern;

/** Kafka's rules for topic names, checked before a name reaches the client. */
public final class TopicNames {
  /** Kafka refuses longer names (a partition directory name must fit in 255 bytes). */
  public static final int MAX_LENGTH = 249;

  private static final Pattern SANITIZE = Pattern.compile("[^a-z0-9._-]");

  private TopicNames() {}

  /**
   * Returns {@code topic} if Kafka accepts it as a topic name.
   *
   * @throws IllegalArgumentException naming {@code parameter}, the value and the rule it breaks
   */
  public static String validate(String parameter, String topic) {
    if (topic == null || topic.isEmpty()) {
      throw new IllegalArgumentException(parameter + " must not be empty");
    }
    if (topic.equals(".") || topic.equals("..")) {
      throw new IllegalArgumentException(parameter + " '" + topic + "' is not a legal Kafka topic");
    }
    if (topic.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          parameter
              + " '"
              + topic
              + "' is "
              + topic.length()
              + " characters; Kafka allows at most "
              + MAX_LENGTH);
    }
    if (!legal(topic)) {
      throw new IllegalArgumentException(
          parameter
              + " '"
              + topic
              + "' contains characters Kafka does not allow in a topic name;"
              + " use only ASCII letters, digits, '.', '_' and '-'");
    }
    return topic;
  }

  // A loop rather than LEGAL.matcher(..): this runs for every published event.
  private static boolean legal(String topic) {
    for (int i = 0; i < topic.length(); i++) {
      char c = topic.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** Lowercases {@code name} and replaces every character outside {@code [a-z0-9._-]} by '-'. */
  public static String sanitize(String name) {
    return SANITIZE.matcher(name.toLowerCase(Locale.ROOT)).replaceAll("-");
  }
}
