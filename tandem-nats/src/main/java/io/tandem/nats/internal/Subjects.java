package io.tandem.nats.internal;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/** NATS's rules for publish subjects, checked before a subject reaches the client. */
public final class Subjects {
  private static final Pattern SANITIZE = Pattern.compile("[^a-z0-9_-]");
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private Subjects() {}

  /**
   * Returns {@code subject} if NATS accepts it as a publish subject: printable ASCII without
   * spaces, no wildcard ({@code *}, {@code >}), tokens separated by single dots, none empty.
   *
   * @throws IllegalArgumentException naming {@code parameter}, the value and the rule it breaks
   */
  public static String validate(String parameter, String subject) {
    if (subject == null || subject.isEmpty()) {
      throw new IllegalArgumentException(parameter + " must not be empty");
    }
    for (int i = 0; i < subject.length(); i++) {
      char c = subject.charAt(i);
      if (c <= ' ' || c > '~') {
        throw new IllegalArgumentException(
            parameter
                + " '"
                + subject
                + "' contains a space, a control or a non-ASCII character at index "
                + i
                + "; NATS subjects are printable ASCII (encode the value with "
                + "SubjectRouter.token)");
      }
      if (c == '*' || c == '>') {
        throw new IllegalArgumentException(
            parameter
                + " '"
                + subject
                + "' contains the wildcard '"
                + c
                + "'; publish needs a "
                + "literal subject");
      }
    }
    if (subject.startsWith(".") || subject.endsWith(".") || subject.contains("..")) {
      throw new IllegalArgumentException(
          parameter + " '" + subject + "' has an empty token (leading, trailing or double '.')");
    }
    return subject;
  }

  /**
   * Returns {@code filter} if it is a legal subject filter: like a subject, but a token may be the
   * wildcard {@code *}, and the last may be {@code >}.
   *
   * @throws IllegalArgumentException naming {@code parameter}, the value and the rule it breaks
   */
  public static String validateFilter(String parameter, String filter) {
    if (filter == null || filter.isEmpty()) {
      throw new IllegalArgumentException(parameter + " must not be empty, e.g. \"tandem.order.>\"");
    }
    String[] tokens = filter.split("\\.", -1);
    for (int i = 0; i < tokens.length; i++) {
      String token = tokens[i];
      if (token.isEmpty()) {
        throw new IllegalArgumentException(
            parameter + " '" + filter + "' has an empty token (leading, trailing or double '.')");
      }
      boolean wildcard = token.equals("*") || token.equals(">") && i == tokens.length - 1;
      if (!wildcard) {
        try {
          validate(parameter, token);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              parameter
                  + " '"
                  + filter
                  + "' is not a subject filter: token '"
                  + token
                  + "' is not a literal, '*', or a final '>'");
        }
      }
    }
    return filter;
  }

  /**
   * Returns {@code name} if JetStream accepts it as a stream name: printable ASCII without spaces,
   * {@code '.'}, {@code '*'}, {@code '>'}, {@code '/'} or {@code '\\'}, at most 255 characters.
   *
   * @throws IllegalArgumentException naming {@code parameter}, the value and the rule it breaks
   */
  public static String validateStreamName(String parameter, String name) {
    return validateName(parameter, name, "stream", "ORDERS");
  }

  /**
   * Returns {@code name} if JetStream accepts it as a durable consumer name; the rules of {@link
   * #validateStreamName}.
   *
   * @throws IllegalArgumentException naming {@code parameter}, the value and the rule it breaks
   */
  public static String validateConsumerName(String parameter, String name) {
    return validateName(parameter, name, "consumer", "billing");
  }

  private static String validateName(String parameter, String name, String kind, String example) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException(
          parameter + " must not be empty, e.g. \"" + example + "\"");
    }
    if (name.length() > 255) {
      throw new IllegalArgumentException(
          parameter + " '" + name + "' is " + name.length() + " characters; at most 255");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c <= ' ' || c > '~' || ".*>/\\".indexOf(c) >= 0) {
        throw new IllegalArgumentException(
            parameter
                + " '"
                + name
                + "' contains '"
                + c
                + "'; "
                + kind
                + " names are printable ASCII without spaces, '.', '*', '>', '/', '\\'");
      }
    }
    return name;
  }

  /** Lowercases {@code name} and replaces every character outside {@code [a-z0-9_-]} by '-'. */
  public static String sanitize(String name) {
    return SANITIZE.matcher(name.toLowerCase(Locale.ROOT)).replaceAll("-");
  }

  /**
   * Encodes {@code value} as one subject token: every UTF-8 byte outside printable ASCII, and
   * {@code '.'}, {@code '*'}, {@code '>'}, {@code '%'}, becomes {@code %XX} (upper-case hex). The
   * encoding is reversible, so two different values never share a token.
   */
  public static String token(String value) {
    StringBuilder out = new StringBuilder(value.length());
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xFF;
      if (c > ' ' && c < 0x7F && c != '.' && c != '*' && c != '>' && c != '%') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    return out.toString();
  }
}
