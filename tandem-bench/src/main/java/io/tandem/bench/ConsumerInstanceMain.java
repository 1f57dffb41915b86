package io.tandem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.Outcome;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.testkit.JvmProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One consumer of a consumer group in a JVM of its own, for the consumer scale-out benchmark: the
 * batched inbox ({@link InboxProcessor} on a {@link ConsumerRunner}) writing one {@code
 * bench_effect} row per event, marked with the instance's name. It prints {@value #READY} when
 * built, starts consuming once the gate file exists (so that the instances of a count join their
 * group together, on a topic that already holds the events), and runs until the process is
 * terminated. On termination it closes the runner (finishing the batches being applied) and writes
 * the latency of each steady event it applied (µs from the event's hand-over to the producer to
 * this instance's commit, one per line) to the given file.
 *
 * <p>Arguments: {@code env:NAME} of the variable holding the JDBC URL, Kafka bootstrap servers,
 * topic, group id, instance name (also the Kafka {@code client.id}, so that the group's assignment
 * names it), lanes, largest batch, latency file, gate file.
 */
public final class ConsumerInstanceMain {
  static final String READY = "TANDEM-CONSUMER-INSTANCE-READY";

  private ConsumerInstanceMain() {}

  public static void main(String[] args) throws Exception {
    String name = args[4];
    int lanes = Integer.parseInt(args[5]);
    int batch = Integer.parseInt(args[6]);
    Path latencyFile = Path.of(args[7]);
    Path gate = Path.of(args[8]);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(JvmProcess.argument(args[0])); // env:NAME: never on the command line
    config.setMaximumPoolSize(lanes + 2);
    HikariDataSource ds = new HikariDataSource(config);
    Queue<Long> micros = new ConcurrentLinkedQueue<>();
    InboxProcessor processor =
        InboxProcessor.builder()
            .dataSource(ds)
            .consumer("bench")
            .onBatch(
                ConsumerEvents.BACKLOG_TYPE, (c, events) -> ConsumerEffects.batch(c, events, name))
            .onBatch(
                ConsumerEvents.STEADY_TYPE, (c, events) -> ConsumerEffects.batch(c, events, name))
            .afterCommit(
                (e, outcome) -> {
                  if (outcome == Outcome.APPLIED
                      && e.eventType().equals(ConsumerEvents.STEADY_TYPE)) {
                    micros.add(Duration.between(e.occurredAt(), Instant.now()).toNanos() / 1_000);
                  }
                })
            .build();
    ConsumerRunner runner =
        ConsumerRunner.builder()
            .source(
                KafkaMessageSource.builder()
                    .bootstrapServers(args[1])
                    .clientProperties(KafkaClientProperties.inherited())
                    .groupId(args[3])
                    .topics(List.of(args[2]))
                    .consumerProperty("client.id", name)
                    .consumerProperty("max.poll.records", "1000")
                    .build())
            .processor(processor)
            .concurrency(lanes)
            .maxBatch(batch)
            .maxInFlight(4 * batch)
            .closeTimeout(Duration.ofSeconds(3))
            .build();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  runner.close();
                  ds.close();
                  StringBuilder lines = new StringBuilder();
                  micros.forEach(m -> lines.append(m).append('\n'));
                  try {
                    Files.writeString(latencyFile, lines);
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                },
                "consumer-instance-stop"));
    System.out.println(READY);
    System.out.flush();
    while (!Files.exists(gate)) {
      TimeUnit.MILLISECONDS.sleep(5);
    }
    runner.start();
    new CountDownLatch(1).await();
  }
}
