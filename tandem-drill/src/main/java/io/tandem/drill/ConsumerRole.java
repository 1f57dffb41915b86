package io.tandem.drill;

import com.zaxxer.hikari.HikariDataSource;
import io.tandem.core.ConfiguredFaults;
import io.tandem.core.FaultInjector;
import io.tandem.core.spi.MessageSource;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.kafka.KafkaMessageSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The {@code consumer} role: receives {@code --topic} in group {@code --group}, logs every delivery
 * ({@link DeliveryLog}) and applies it through the inbox in batches ({@link ConsumerRunner}, its
 * default batch size; ordering guard on unless {@code --unordered}), or with {@code --mode bypass}
 * without the inbox ({@link BypassSink}).
 */
final class ConsumerRole {
  private ConsumerRole() {}

  static void run(Args a) throws InterruptedException {
    HikariDataSource ds = RoleMain.pool(a.required("jdbc-url"), "drill-consumer", 6);
    FaultInjector faults = ConfiguredFaults.fromSystemProperty();
    MessageSource kafka =
        KafkaMessageSource.builder()
            .bootstrapServers(a.required("kafka-bootstrap"))
            .clientProperties(KafkaClientProperties.inherited())
            .groupId(a.required("group"))
            .topics(List.of(a.required("topic")))
            // A dead member's partitions move after 6 s instead of the default 45 s.
            .consumerProperty("session.timeout.ms", "6000")
            .consumerProperty("heartbeat.interval.ms", "1500")
            .build();
    MessageSource source = new DeliveryLog(kafka, ds);
    AutoCloseable running;
    if (a.get("mode", "inbox").equals("bypass")) {
      source.start(new BypassSink(ds, faults));
      running = source;
    } else {
      InboxProcessor processor =
          InboxProcessor.builder()
              .dataSource(ds)
              .consumer(RoleMain.CONSUMER)
              .onAnyEventType(1, DrillEffects::apply)
              .ordered(!a.flag("unordered"))
              .faultInjector(faults)
              .build();
      ConsumerRunner runner =
          ConsumerRunner.builder()
              .source(source)
              .processor(processor)
              .concurrency(4)
              .sweepInterval(Duration.ofSeconds(1))
              .build();
      runner.start();
      running = runner;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    running.close();
                  } catch (Exception e) {
                    // stopping anyway
                  }
                  ds.close();
                },
                "drill-consumer-stop"));
    RoleMain.ready("consumer " + a.required("group"));
    new CountDownLatch(1).await();
  }
}
