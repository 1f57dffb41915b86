package io.tandem.examples.checkout;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.core.ConfiguredFaults;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.testkit.JvmProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Runs one checkout orchestrator instance as its own process, until it is killed:
 *
 * <pre>
 * java -cp ... io.tandem.examples.checkout.OrchestratorMain \
 *     JDBC_URL BOOTSTRAP_SERVERS TOPIC_PREFIX INSTANCE [STEP_TIMEOUT]
 * </pre>
 *
 * <p>Fault points are off unless {@code -Dtandem.faults=orchestrator.after-step=halt@N} (see {@link
 * ConfiguredFaults}) is given. It prints {@value #READY} and the instance name once its relay,
 * reply consumer and timer run. Tests and drills {@code kill -9} it in the middle of sagas and
 * start another one, which carries them on from the database.
 */
public final class OrchestratorMain {
  /** The line printed when the instance runs. */
  public static final String READY = "CHECKOUT-ORCHESTRATOR-READY";

  private OrchestratorMain() {}

  /**
   * Starts an instance for {@code system} as a child process of this JVM (its output in {@code
   * dir/instance.log}) and returns at once; {@code awaitOutput(READY + " " + instance, ...)} waits
   * until it runs.
   *
   * @param jvmOptions extra JVM options, such as a {@code -Dtandem.faults=...} setting
   */
  public static JvmProcess startProcess(
      CheckoutSystem system,
      Path dir,
      String instance,
      Duration stepTimeout,
      List<String> jvmOptions) {
    return JvmProcess.start(
        dir,
        instance,
        jvmOptions,
        OrchestratorMain.class.getName(),
        JvmProcess.arguments()
            .secret("TANDEM_ORCHESTRATOR_JDBC_URL", system.orchestratorJdbcUrl())
            .environment( // never on the command line
                KafkaClientProperties.ENVIRONMENT_VARIABLE,
                KafkaClientProperties.encode(system.topology().clientProperties()))
            .add(system.topology().bootstrapServers(), system.topology().prefix())
            .add(instance, stepTimeout.toString()));
  }

  public static void main(String[] args) throws InterruptedException {
    if (args.length < 4 || args.length > 5) {
      System.err.println(
          "usage: OrchestratorMain env:JDBC_URL_VARIABLE BOOTSTRAP_SERVERS TOPIC_PREFIX INSTANCE"
              + " [STEP_TIMEOUT, ISO-8601, default PT10S]");
      System.exit(2);
    }
    Duration stepTimeout = args.length == 5 ? Duration.parse(args[4]) : Duration.ofSeconds(10);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(JvmProcess.argument(args[0])); // env:NAME: never on the command line
    config.setPoolName("orchestrator-" + args[3]);
    config.setMaximumPoolSize(10);
    HikariDataSource dataSource = new HikariDataSource(config);
    CheckoutOrchestrator orchestrator =
        CheckoutOrchestrator.start(
            dataSource,
            new KafkaTopology(args[1], args[2], KafkaClientProperties.inherited()),
            stepTimeout,
            Duration.ofMillis(100),
            args[3],
            ConfiguredFaults.fromSystemProperty());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  orchestrator.close();
                  dataSource.close();
                },
                "checkout-orchestrator-stop"));
    System.out.println(READY + " " + args[3]);
    System.out.flush();
    new CountDownLatch(1).await(); // until killed
  }
}
