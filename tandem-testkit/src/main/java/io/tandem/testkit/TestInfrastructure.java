package io.tandem.testkit;

import org.junit.jupiter.api.Assumptions;
import org.opentest4j.TestAbortedException;

/**
 * The PostgreSQL server, MariaDB server and Kafka cluster shared by all tests (and the demo) of one
 * JVM.
 *
 * <p>By default each is embedded, started on first use and stopped at JVM exit, so a plain {@code
 * mvn test} needs neither Docker nor installed servers. To run against real servers instead, set:
 *
 * <ul>
 *   <li>system property {@code tandem.jdbc.url} or environment variable {@code TANDEM_JDBC_URL},
 *       for example {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres};
 *   <li>system property {@code tandem.kafka.bootstrap} or environment variable {@code
 *       TANDEM_KAFKA_BOOTSTRAP}, for example {@code 127.0.0.1:9092}.
 * </ul>
 *
 * <p>MariaDB is never embedded: {@link #mariadb()} connects to the server named by system property
 * {@code tandem.mariadb.url} or environment variable {@code TANDEM_MARIADB_URL}, else to {@value
 * #DEFAULT_MARIADB_URL}, and skips the calling test when that default does not answer.
 *
 * <p>A system property wins over the environment variable; blank values count as unset.
 *
 * <pre>{@code
 * IsolatedDatabase database = TestInfrastructure.postgres().createDatabase("inbox_test");
 * IsolatedDatabase other = TestInfrastructure.mariadb().createDatabase("inbox_test");
 * String bootstrapServers = TestInfrastructure.kafka().bootstrapServers();
 * }</pre>
 *
 * <p>A program other than a test runner (the demo, say) ends with {@link System#exit(int)}: the
 * embedded broker's threads would otherwise keep the JVM alive; see {@link KafkaBroker}.
 *
 * <p>Tests must not close the shared instances, and should not stop the shared broker: outage
 * drills start their own with {@link KafkaBroker#embedded()}. Thread-safe: concurrent first calls
 * start one instance.
 */
public final class TestInfrastructure {

  /** Environment variable naming an external PostgreSQL by JDBC URL. */
  public static final String JDBC_URL_VARIABLE = "TANDEM_JDBC_URL";

  /** System property naming an external PostgreSQL by JDBC URL; wins over the variable. */
  public static final String JDBC_URL_PROPERTY = "tandem.jdbc.url";

  /** Environment variable naming the MariaDB server by JDBC URL. */
  public static final String MARIADB_URL_VARIABLE = "TANDEM_MARIADB_URL";

  /** System property naming the MariaDB server by JDBC URL; wins over the variable. */
  public static final String MARIADB_URL_PROPERTY = "tandem.mariadb.url";

  /** The MariaDB server tried when none is configured: the machine's own, as CI runs it. */
  public static final String DEFAULT_MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

  /** Environment variable naming an external Kafka by bootstrap servers. */
  public static final String KAFKA_BOOTSTRAP_VARIABLE = "TANDEM_KAFKA_BOOTSTRAP";

  /** System property naming an external Kafka by bootstrap servers; wins over the variable. */
  public static final String KAFKA_BOOTSTRAP_PROPERTY = "tandem.kafka.bootstrap";

  // Separate locks: a test waiting for Kafka's start should not hold up one that wants PostgreSQL.
  private static final Object POSTGRES_LOCK = new Object();
  private static final Object KAFKA_LOCK = new Object();
  private static final Object MARIADB_LOCK = new Object();
  private static PostgresServer postgres;
  private static MariaDbServer mariadb;
  // Set when the default MariaDB did not answer; it is tried once per JVM.
  private static TestAbortedException mariadbSkipped;
  private static KafkaBroker kafka;

  private TestInfrastructure() {}

  /**
   * Returns the shared PostgreSQL server: the external one named by {@value #JDBC_URL_PROPERTY} or
   * {@value #JDBC_URL_VARIABLE}, else an embedded one with default settings, started on the first
   * call.
   */
  public static PostgresServer postgres() {
    synchronized (POSTGRES_LOCK) {
      if (postgres == null) {
        String url = setting(JDBC_URL_PROPERTY, JDBC_URL_VARIABLE);
        postgres = url == null ? PostgresServer.embedded().start() : PostgresServer.external(url);
      }
      return postgres;
    }
  }

  /**
   * Returns the shared MariaDB server: the one named by {@value #MARIADB_URL_PROPERTY} or {@value
   * #MARIADB_URL_VARIABLE}, else {@value #DEFAULT_MARIADB_URL}. Connects on the first call only.
   *
   * <p>When nothing is configured and the default does not answer, the calling test is skipped (a
   * JUnit assumption fails, with the reason), so that a build on a machine without MariaDB still
   * passes. Annotate a class with {@link RequiresMariaDb} to skip it before its {@code @BeforeAll}
   * runs, each of its tests reported as skipped. A configured server that does not answer is an
   * error, not a skip.
   *
   * @throws org.opentest4j.TestAbortedException when the default server does not answer
   * @throws IllegalStateException when the configured server does not answer
   */
  public static MariaDbServer mariadb() {
    synchronized (MARIADB_LOCK) {
      if (mariadb == null) {
        if (mariadbSkipped != null) {
          throw mariadbSkipped; // tried once: later classes skip without waiting again
        }
        try {
          mariadb =
              connectMariaDb(
                  setting(MARIADB_URL_PROPERTY, MARIADB_URL_VARIABLE), DEFAULT_MARIADB_URL);
        } catch (TestAbortedException e) {
          mariadbSkipped = e;
          throw e;
        }
      }
      return mariadb;
    }
  }

  /** Connects to {@code configuredUrl}, or, when null, to {@code defaultUrl} or skips. */
  static MariaDbServer connectMariaDb(String configuredUrl, String defaultUrl) {
    if (configuredUrl != null) {
      return MariaDbServer.external(configuredUrl);
    }
    try {
      return MariaDbServer.external(defaultUrl);
    } catch (IllegalStateException e) {
      return Assumptions.abort(
          "MariaDB tests skipped: "
              + e.getMessage()
              + " Set "
              + MARIADB_URL_VARIABLE
              + " (or -D"
              + MARIADB_URL_PROPERTY
              + ") to run them against another server.");
    }
  }

  /**
   * Returns the shared Kafka cluster: the external one named by {@value #KAFKA_BOOTSTRAP_PROPERTY}
   * or {@value #KAFKA_BOOTSTRAP_VARIABLE}, else an embedded broker with default settings, started
   * on the first call.
   */
  public static KafkaBroker kafka() {
    synchronized (KAFKA_LOCK) {
      if (kafka == null) {
        String bootstrap = setting(KAFKA_BOOTSTRAP_PROPERTY, KAFKA_BOOTSTRAP_VARIABLE);
        kafka =
            bootstrap == null ? KafkaBroker.embedded().start() : KafkaBroker.external(bootstrap);
      }
      return kafka;
    }
  }

  static String setting(String property, String variable) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      value = System.getenv(variable);
    }
    return value == null || value.isBlank() ? null : value.strip();
  }
}
