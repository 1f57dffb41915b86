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
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception lastFailure = null;
    try (Admin admin = Admin.create(adminConfig(bootstrapServers, ATTEMPT_TIMEOUT))) {
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
        } catch (ExecutionException | TimeoutException e) {
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
    return Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
  }
}
