package io.tandem.cdc;

import io.tandem.core.ConfiguredFaults;
import io.tandem.core.FaultInjector;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A CDC relay in a process of its own, for the crash tests: args JDBC URL, bootstrap servers,
 * topic, slot and (MariaDB) the schema history directory; fault points from {@code
 * -Dtandem.faults}, counted once the file {@code -Dtandem.test.faults.armed-by} names exists (if
 * given).
 */
public final class CdcRelayMain {
  static final String STARTED = "CDC-RELAY-STARTED";

  /**
   * A system property naming a file: while it does not exist the fault points are not counted (the
   * MariaDB connector stores positions of its own at the start, before any outbox row: a test that
   * counts flushes arms the faults once the stream is where it wants it).
   */
  static final String ARMED_BY = "tandem.test.faults.armed-by";

  private CdcRelayMain() {}

  private static FaultInjector armed(FaultInjector faults) {
    String file = System.getProperty(ARMED_BY);
    if (file == null) {
      return faults;
    }
    java.nio.file.Path trigger = java.nio.file.Path.of(file);
    return point -> {
      if (java.nio.file.Files.exists(trigger)) {
        faults.reached(point);
      }
    };
  }

  public static void main(String[] args) throws Exception {
    KafkaTransport transport =
        KafkaTransport.builder()
            .bootstrapServers(args[1])
            .source("/tandem/orders-service")
            .topicRouter(TopicRouter.fixed(args[2]))
            .build();
    CdcRelay.Builder builder =
        CdcRelay.builder()
            .jdbcUrl(args[0])
            .transport(transport)
            .slotName(args[3])
            .relayId("cdc-process")
            .heartbeatInterval(Duration.ofMinutes(5))
            .offsetFlushInterval(Duration.ofMillis(200))
            .drainInterval(Duration.ofMillis(200))
            .faultInjector(armed(ConfiguredFaults.fromSystemProperty()));
    if (args.length > 4) {
      builder.schemaHistoryDirectory(java.nio.file.Path.of(args[4]));
    }
    CdcRelay relay = builder.build();
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  relay.close();
                  transport.close();
                  stop.countDown();
                }));
    relay.start();
    System.out.println(STARTED);
    System.out.flush();
    stop.await();
  }
}
