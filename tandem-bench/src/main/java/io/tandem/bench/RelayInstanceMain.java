package io.tandem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.JvmProcess;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * One relay instance in a JVM of its own, for the scale-out benchmark: runs until the process is
 * terminated. Arguments: {@code env:NAME} of the variable holding the JDBC URL, Kafka bootstrap
 * servers, topic, relay id. Leases of 15 s (above the default publish timeout plus a heartbeat)
 * renewed every second, so that instances share the partitions within seconds.
 */
public final class RelayInstanceMain {
  static final String READY = "TANDEM-RELAY-INSTANCE-READY";

  private RelayInstanceMain() {}

  public static void main(String[] args) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(JvmProcess.argument(args[0])); // env:NAME: never on the command line
    config.setMaximumPoolSize(4);
    HikariDataSource ds = new HikariDataSource(config);
    KafkaTransport kafka =
        KafkaTransport.builder()
            .bootstrapServers(args[1])
            .clientProperties(KafkaClientProperties.inherited())
            .source("/tandem/bench")
            .topicRouter(TopicRouter.fixed(args[2]))
            .build();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(ds)
            .transport(kafka)
            .relayId(args[3])
            .leaseDuration(Duration.ofSeconds(15))
            .heartbeatInterval(Duration.ofSeconds(1))
            .build();
    relay.start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  relay.close();
                  kafka.close();
                  ds.close();
                },
                "relay-instance-stop"));
    System.out.println(READY);
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
