package io.tandem.testkit.internal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and rewrites JDBC URLs of the form {@code jdbc:postgresql://hosts/db?props} and {@code
 * jdbc:mariadb://hosts/db?props}.
 */
public final class JdbcUrls {

  private static final Pattern POSTGRES_URL =
      Pattern.compile("(jdbc:postgresql://[^/?]+/)([^?]*)(\\?.*)?");
  private static final Pattern MARIADB_URL =
      Pattern.compile("(jdbc:mariadb://[^/?]+/)([^?]*)(\\?.*)?");

  private JdbcUrls() {}

  /**
   * Returns {@code url} unchanged after checking its form.
   *
   * @throws IllegalArgumentException if it is not {@code jdbc:postgresql://host[:port]/database}
   *     with optional {@code ?properties}
   */
  public static String requirePostgres(String url) {
    if (url == null || !POSTGRES_URL.matcher(url).matches()) {
      throw new IllegalArgumentException(
          "Invalid PostgreSQL JDBC URL '"
              + redact(url)
              + "': expected jdbc:postgresql://host[:port]/database[?user=...&password=...],"
              + " for example jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    }
    return url;
  }

  /**
   * Returns {@code url} unchanged after checking its form.
   *
   * @throws IllegalArgumentException if it is not {@code jdbc:mariadb://host[:port]/[database]}
   *     with optional {@code ?properties}
   */
  public static String requireMariaDb(String url) {
    if (url == null || !MARIADB_URL.matcher(url).matches()) {
      throw new IllegalArgumentException(
          "Invalid MariaDB JDBC URL '"
              + redact(url)
              + "': expected jdbc:mariadb://host[:port]/[database][?user=...&password=...],"
              + " for example jdbc:mariadb://127.0.0.1:3306/test?user=root");
    }
    return url;
  }

  /**
   * Returns {@code url} (PostgreSQL or MariaDB) with its database replaced by {@code database},
   * properties kept.
   */
  public static String withDatabase(String url, String database) {
    Matcher matcher =
        url != null && url.startsWith("jdbc:postgresql:")
            ? POSTGRES_URL.matcher(requirePostgres(url))
            : MARIADB_URL.matcher(requireMariaDb(url));
    matcher.matches();
    String properties = matcher.group(3) == null ? "" : matcher.group(3);
    return matcher.group(1) + database + properties;
  }

  /** Returns {@code url} with any password replaced by {@code ***}, for error messages. */
  public static String redact(String url) {
    return io.tandem.core.Redaction.redact(url);
  }
}
