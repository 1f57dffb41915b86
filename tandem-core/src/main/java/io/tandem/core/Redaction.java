package io.tandem.core;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes credentials from text that is printed, logged or written to a report: a JDBC, AMQP, NATS,
 * Redis or Kafka URL, a whole error message, a command line. Everything else (scheme, host, port,
 * database, user name) stays, so the operator still sees where Tandem tried to go. Every place in
 * Tandem that shows a URL or URI goes through {@link #redact}; {@link ErrorSummary} uses it too.
 *
 * <p>What counts as a credential, in any letter case:
 *
 * <ul>
 *   <li>the password of a URL's user information: {@code amqps://user:***@host}, {@code
 *       redis://:***@host}, {@code nats://user:***@host};
 *   <li>the whole user information of schemes where it is a token or a password alone: {@code
 *       nats://***@host}, {@code redis://***@host} (also {@code tls}, {@code ws}, {@code wss},
 *       {@code rediss}, {@code redis-sentinel});
 *   <li>the value of a property or setting whose name ends in {@code password}, {@code passwd},
 *       {@code pwd}, {@code secret}, {@code token}, {@code apikey}, {@code api_key} or {@code
 *       credentials}, after {@code =} or {@code :}: {@code ?password=***}, {@code
 *       &sslPassword=***}, {@code (password=***)} of MariaDB's address form, {@code
 *       trustStorePassword=***}, {@code password="***"} of a JAAS line, {@code token: ***}.
 * </ul>
 *
 * <pre>{@code
 * Redaction.redact("jdbc:postgresql://db:5432/orders?user=app&Password=hunter2")
 *     // "jdbc:postgresql://db:5432/orders?user=app&Password=***"
 * Redaction.redact("amqps://app:s3cret@rabbit:5671/prod")  // "amqps://app:***@rabbit:5671/prod"
 * Redaction.containsSecret("redis://:pw@cache:6379")         // true
 * }</pre>
 *
 * <p>Stateless and thread-safe.
 */
public final class Redaction {
  /** What replaces a secret. */
  public static final String MASK = "***";

  // scheme://user:password@ (the password may hold '@' and ':' up to the last '@' of the authority)
  private static final Pattern USER_INFO =
      Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*)://([^/?#\\s@:]*)(:[^/?#\\s]*)?@");
  private static final Set<String> TOKEN_SCHEMES =
      Set.of("nats", "tls", "ws", "wss", "redis", "rediss", "redis-sentinel");
  private static final Pattern SECRET_SETTING =
      Pattern.compile(
          "(?i)\\b([a-z0-9_.-]*(?:password|passwd|pwd|secret|token|apikey|api_key|credentials))"
              + "(\"?\\s*[=:]\\s*)(?!\\*\\*\\*)(\"[^\"]*\"|'[^']*'|[^\\s&;)'\"]+)");

  private Redaction() {}

  /**
   * {@code text} with every credential replaced by {@value #MASK}; null stays null.
   *
   * <p>Idempotent: redacting redacted text changes nothing.
   */
  public static String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    return maskSettings(maskUserInfo(text));
  }

  /** Whether {@link #redact} would change {@code text}, i.e. it holds a credential. */
  public static boolean containsSecret(String text) {
    return text != null && !text.equals(redact(text));
  }

  private static String maskUserInfo(String text) {
    Matcher m = USER_INFO.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String scheme = m.group(1);
      String user = m.group(2);
      String password = m.group(3);
      String replacement;
      if (password != null) {
        replacement = scheme + "://" + user + ":" + MASK + "@";
      } else if (!user.isEmpty() && isTokenScheme(scheme) && !MASK.equals(user)) {
        replacement = scheme + "://" + MASK + "@";
      } else {
        replacement = m.group();
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static boolean isTokenScheme(String scheme) {
    String s = scheme.toLowerCase(Locale.ROOT);
    return TOKEN_SCHEMES.contains(s.startsWith("jdbc:") ? s.substring(5) : s);
  }

  private static String maskSettings(String text) {
    Matcher m = SECRET_SETTING.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String value = m.group(3);
      String masked =
          value.startsWith("\"")
              ? "\"" + MASK + "\""
              : value.startsWith("'") ? "'" + MASK + "'" : MASK;
      m.appendReplacement(out, Matcher.quoteReplacement(m.group(1) + m.group(2) + masked));
    }
    m.appendTail(out);
    return out.toString();
  }
}
