package io.tandem.examples.choreography;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.testkit.JvmProcess;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Runs one service of the {@link ChoreographedCheckout} — its relay and its consumer — as its own
 * process, until it is killed:
 *
 * <pre>
 * java -cp ... io.tandem.examples.choreography.ChoreographyServiceMain \
 *     SERVICE JDBC_URL BOOTSTRAP_SERVERS TOPIC_PREFIX
 * </pre>
 *
 * <p>SERVICE is order, payment, inventory or shipping; the other arguments come from a checkout
 * built with {@link ChoreographedCheckoutBuilder#externalServices}. It prints {@value #READY} and
 * the service name once its relay and consumer run. Tests {@code kill -9} it in the middle of
 * checkouts and start it again: what it committed and did not publish is published by the next
 * relay, what it consumed and did not commit is delivered again, and its inbox turns what it
 * committed but did not acknowledge into a duplicate.
 */
public final class ChoreographyServiceMain {
  /** The line printed when the service runs. */
  public static final String READY = "CHOREOGRAPHY-SERVICE-READY";

  private ChoreographyServiceMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 4 || !ServiceWiring.INBOUND.containsKey(args[0])) {
      System.err.println(
          "usage: ChoreographyServiceMain order|payment|inventory|shipping env:JDBC_URL_VARIABLE"
              + " BOOTSTRAP_SERVERS TOPIC_PREFIX");
      System.exit(2);
    }
    String service = args[0];
    String jdbcUrl = JvmProcess.argument(args[1]); // env:NAME: never on the command line
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setPoolName("choreo-" + service);
    config.setMaximumPoolSize(ChoreographedCheckout.DEFAULT_CONCURRENCY + 6);
    HikariDataSource dataSource = new HikariDataSource(config);
    ServiceNode node =
        ServiceWiring.startNode(
            service,
            dataSource,
            ServiceWiring.processorOf(service, dataSource),
            jdbcUrl.startsWith("jdbc:mariadb:"),
            ChoreographedCheckout.DEFAULT_POLL_INTERVAL,
            args[2],
            KafkaClientProperties.inherited(), // from the environment, never argv
            args[3],
            ChoreographedCheckout.DEFAULT_CONCURRENCY);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  node.close();
                  dataSource.close();
                },
                "choreography-service-stop"));
    System.out.println(READY + " " + service);
    System.out.flush();
    new CountDownLatch(1).await(); // until killed
  }

  /**
   * Starts {@code service} of {@code checkout} (built with it as an external service) as a child
   * process of this JVM, its output in {@code dir/name.log}; returns at once.
   */
  public static JvmProcess startProcess(
      ChoreographedCheckout checkout, String service, Path dir, String name) {
    return JvmProcess.start(
        dir,
        name,
        List.of(),
        ChoreographyServiceMain.class.getName(),
        JvmProcess.arguments()
            .add(service)
            .secret("TANDEM_SERVICE_JDBC_URL", checkout.jdbcUrl(service))
            .environment(
                KafkaClientProperties.ENVIRONMENT_VARIABLE,
                KafkaClientProperties.encode(checkout.kafkaClientProperties()))
            .add(checkout.bootstrapServers(), checkout.topicPrefix()));
  }
}
