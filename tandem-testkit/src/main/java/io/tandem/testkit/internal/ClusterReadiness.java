package io.tandem.testkit.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;

/** Waits until a Kafka cluster answers an admin client. */
public final class ClusterReadiness {

  private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration RETRY_PAUSE = Duration.ofMillis(100);

  private ClusterReadiness() {}

  /**
   * Returns once {@code describeCluster} lists at least one broker.
   *
   * @throws IllegalStateException if that does not happen within {@code timeout}
   */
  public static void await(String bootstrapServers, Duration timeout) {
    await(bootstrapServers, Map.of(), timeout);
  }

  /**
   * Returns once {@code describeCluster}, asked with client settings {@code clientProperties},
   * lists at least one broker; a refused login fails at once instead of being retried.
   *
   * @throws IllegalStateException if that does not happen within {@code timeout}, saying why
   *     without the settings' values
   */
  public static void await(
      String bootstrapServers, Map<String, String> clientProperties, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception lastFailure = null;
    try (Admin admin =
        Admin.create(adminConfig(bootstrapServers, clientProperties, ATTEMPT_TIMEOUT))) {
      while (System.nanoTime() < deadline) {
        try {
          Collection<Node> nodes =
              admin
                  .describeCluster(
                      new DescribeClusterOptions().timeoutMs((int) ATTEMPT_TIMEOUT.toMillis()))
                  .nodes()
                  .get(ATTEMPT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          if (!nodes.isEmpty()) {
            return;
          }
          // Answered, but no broker registered yet: ask again shortly.
          Thread.sleep(RETRY_PAUSE.toMillis());
        } catch (ExecutionException e) {
          if (e.getCause() instanceof org.apache.kafka.common.errors.AuthenticationException
              || e.getCause() instanceof org.apache.kafka.common.errors.AuthorizationException) {
            throw new IllegalStateException(
                "Kafka at "
                    + bootstrapServers
                    + " refused the client: "
                    + io.tandem.core.ErrorSummary.of(e.getCause())
                    + "; check the SASL and TLS client settings",
                e.getCause());
          }
          lastFailure = e;
        } catch (TimeoutException e) {
          lastFailure = e;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(
              "Interrupted while waiting for Kafka at " + bootstrapServers, e);
        }
      }
    }
    throw new IllegalStateException(
        "Kafka at "
            + bootstrapServers
            + " did not answer describeCluster within "
            + timeout
            + (lastFailure == null ? "" : "; last failure: " + lastFailure),
        lastFailure);
  }

  /** Returns admin client settings with short timeouts, for test infrastructure. */
  public static Map<String, Object> adminConfig(String bootstrapServers, Duration timeout) {
    return adminConfig(bootstrapServers, Map.of(), timeout);
  }

  /**
   * Returns admin client settings with short timeouts and those of {@code clientProperties} an
   * admin client knows (a producer's or consumer's own are left out).
   */
  public static Map<String, Object> adminConfig(
      String bootstrapServers, Map<String, String> clientProperties, Duration timeout) {
    Map<String, Object> config = new java.util.HashMap<>();
    clientProperties.forEach(
        (key, value) -> {
          if (AdminClientConfig.configNames().contains(key)) {
            config.put(key, value);
          }
        });
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    return config;
  }
}
