package io.tandem.cdc;

import io.tandem.core.ConfiguredFaults;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A CDC relay in a process of its own, for the crash tests: args JDBC URL, bootstrap servers,
 * topic, slot; fault points from {@code -Dtandem.faults}.
 */
public final class CdcRelayMain {
  static final String STARTED = "CDC-RELAY-STARTED";

  private CdcRelayMain() {}

  public static void main(String[] args) throws Exception {
    KafkaTransport transport =
        KafkaTransport.builder()
            .bootstrapServers(args[1])
            .source("/tandem/orders-service")
            .topicRouter(TopicRouter.fixed(args[2]))
            .build();
    CdcRelay relay =
        CdcRelay.builder()
            .jdbcUrl(args[0])
            .transport(transport)
            .slotName(args[3])
            .relayId("cdc-process")
            .heartbeatInterval(Duration.ofMinutes(5))
            .offsetFlushInterval(Duration.ofMillis(200))
            .drainInterval(Duration.ofMillis(200))
            .faultInjector(ConfiguredFaults.fromSystemProperty())
            .build();
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
