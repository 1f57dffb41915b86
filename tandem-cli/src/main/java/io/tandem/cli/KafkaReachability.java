package io.tandem.cli;

import io.tandem.core.ErrorSummary;
import io.tandem.core.TandemException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Asks the Kafka cluster for its id with the relay's own client settings before the relay starts,
 * so that a listener that needs TLS or SASL, a certificate that is not trusted or a refused login
 * is said once, clearly, instead of as publishes that time out forever.
 */
final class KafkaReachability {
  private KafkaReachability() {}

  /**
   * Returns once the cluster answered, waiting at most {@code timeout}.
   *
   * @throws TandemException saying what failed and what to try, never a setting's value
   */
  static void check(String bootstrapServers, Map<String, String> settings, Duration timeout) {
    check(bootstrapServers, settings, timeout, "--startup-timeout");
  }

  /**
   * As {@link #check(String, Map, Duration)}; {@code timeoutOption} names the option that sets
   * {@code timeout}, or is null when none does.
   */
  static void check(
      String bootstrapServers,
      Map<String, String> settings,
      Duration timeout,
      String timeoutOption) {
    Map<String, Object> config = new HashMap<>();
    for (Map.Entry<String, String> e : settings.entrySet()) {
      if (AdminClientConfig.configNames().contains(e.getKey())) {
        config.put(e.getKey(), e.getValue()); // a producer-only setting would only be warned about
      }
    }
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    config.put(AdminClientConfig.CLIENT_ID_CONFIG, "tandem-relay-check");
    String protocol = settings.getOrDefault("security.protocol", "PLAINTEXT");
    try (Admin admin = Admin.create(config)) {
      admin.describeCluster().clusterId().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw noAnswer(bootstrapServers, protocol, timeout, timeoutOption);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
        throw noAnswer(
            bootstrapServers,
            protocol,
            timeout,
            timeoutOption); // the client's own timeout came first
      }
      throw new TandemException(
          "Kafka at "
              + bootstrapServers
              + " refused the connection with security.protocol="
              + protocol
              + ": "
              + ErrorSummary.of(cause)
              + ". Check the TLS and SASL client settings given with --kafka-config or"
              + " --kafka-property (docs/security.md, 'Secured brokers').");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TandemException("Interrupted while connecting to Kafka at " + bootstrapServers);
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new TandemException(
          "The Kafka client refused its settings: "
              + ErrorSummary.of(e)
              + " (check --kafka-config and --kafka-property)");
    }
  }

  private static TandemException noAnswer(
      String bootstrapServers, String protocol, Duration timeout, String timeoutOption) {
    return new TandemException(
        "Kafka at "
            + bootstrapServers
            + " did not answer within "
            + timeout.toMillis()
            + " ms"
            + (timeoutOption == null ? "" : " (" + timeoutOption + ")")
            + " with security.protocol="
            + protocol
            + ". Is it running and reachable? If its listener needs TLS or SASL, give the"
            + " client settings with --kafka-config FILE or --kafka-property KEY=VALUE"
            + " (docs/security.md, 'Secured brokers').");
  }
}
