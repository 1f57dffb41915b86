package io.tandem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.JvmProcess;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * A relay alone in its JVM, draining a backlog; prints the peak heap it used. Run by the relay
 * benchmark with {@code -Xmx256m}: finishing at all proves the backlog fits in 256 MB.
 *
 * <p>Arguments: {@code env:NAME} of the variable holding the JDBC URL, Kafka bootstrap servers,
 * topic.
 */
public final class RelayDrainMain {
  static final String RESULT = "TANDEM-DRAIN ";

  private RelayDrainMain() {}

  public static void main(String[] args) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(JvmProcess.argument(args[0])); // env:NAME: never on the command line
    config.setMaximumPoolSize(3);
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long peak = 0;
    long start = System.nanoTime();
    try (HikariDataSource ds = new HikariDataSource(config);
        KafkaTransport kafka =
            KafkaTransport.builder()
                .bootstrapServers(args[1])
                .clientProperties(KafkaClientProperties.inherited())
                .source("/tandem/bench")
                .topicRouter(TopicRouter.fixed(args[2]))
                .build()) {
      OutboxRelay relay = OutboxRelay.builder().dataSource(ds).transport(kafka).build();
      relay.start();
      OutboxOperations operations = OutboxOperations.create(ds);
      while (operations.pending() > 0) {
        peak = Math.max(peak, memory.getHeapMemoryUsage().getUsed());
        for (int i = 0; i < 10; i++) {
          Thread.sleep(50); // sampling interval of the heap, not a wait for an outcome
          peak = Math.max(peak, memory.getHeapMemoryUsage().getUsed());
        }
      }
      relay.close();
    }
    System.out.printf(
        "%s%d %d%n", RESULT, peak / (1024 * 1024), (System.nanoTime() - start) / 1_000_000);
    System.exit(0);
  }
}
