package io.tandem.drill;

import com.zaxxer.hikari.HikariDataSource;
import io.tandem.cdc.CdcRelay;
import io.tandem.core.ConfiguredFaults;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxRelay;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * The {@code relay} role: the polling relay ({@code --batch} events a cycle, default 50) or, with
 * {@code --mode cdc}, the CDC relay on slot {@code --slot}, publishing the outbox to {@code
 * --topic} until the process is stopped.
 */
final class RelayRole {
  private RelayRole() {}

  static void run(Args a) throws InterruptedException {
    boolean cdc = a.get("mode", "polling").equals("cdc");
    HikariDataSource ds =
        RoleMain.pool(a.required("jdbc-url"), cdc ? "drill-cdc-relay" : "drill-relay", 4);
    KafkaTransport transport =
        KafkaTransport.builder()
            .bootstrapServers(a.required("kafka-bootstrap"))
            .clientProperties(KafkaClientProperties.inherited())
            .source("/tandem/drill/service")
            .topicRouter(TopicRouter.fixed(a.required("topic")))
            .build();
    AutoCloseable relay = cdc ? cdcRelay(a, ds, transport) : pollingRelay(a, ds, transport);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    relay.close();
                  } catch (Exception e) {
                    // stopping anyway
                  }
                  transport.close();
                  ds.close();
                },
                "drill-relay-stop"));
    RoleMain.ready((cdc ? "cdc relay " : "relay ") + a.required("id"));
    new CountDownLatch(1).await();
  }

  private static AutoCloseable pollingRelay(Args a, HikariDataSource ds, KafkaTransport transport) {
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(ds)
            .transport(transport)
            .relayId(a.required("id"))
            .leaseDuration(Duration.ofSeconds(4))
            .heartbeatInterval(Duration.ofMillis(500))
            .publishTimeout(Duration.ofSeconds(2))
            .pollInterval(Duration.ofMillis(200))
            .batchSize(a.intValue("batch", 50))
            .faultInjector(ConfiguredFaults.fromSystemProperty())
            .build();
    relay.start();
    return relay::close;
  }

  /** The CDC relay (PostgreSQL's WAL through Debezium). */
  private static AutoCloseable cdcRelay(Args a, HikariDataSource ds, KafkaTransport transport) {
    CdcRelay relay =
        CdcRelay.builder()
            .jdbcUrl(a.required("jdbc-url"))
            .dataSource(ds)
            .transport(transport)
            .slotName(a.required("slot"))
            .relayId(a.required("id"))
            .heartbeatInterval(Duration.ofMillis(a.intValue("heartbeat-ms", 500)))
            .offsetFlushInterval(Duration.ofMillis(200))
            .drainInterval(Duration.ofMillis(200))
            .monitorInterval(Duration.ofSeconds(1))
            .publishTimeout(Duration.ofSeconds(2))
            .faultInjector(ConfiguredFaults.fromSystemProperty())
            .build();
    relay.start();
    return relay::close;
  }
}
