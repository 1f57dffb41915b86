package io.tandem.inbox.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.RetryPolicy;
import io.tandem.core.TandemException;
import io.tandem.core.spi.MessageSource;
import io.tandem.inbox.AggregateGap;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.DeadLetter;
import io.tandem.inbox.DeadLetterReason;
import io.tandem.inbox.DeadLetterStatus;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.Outcome;
import io.tandem.inbox.PermanentHandlerException;
import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.TestInfrastructure;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What every transport's consumer must keep, run with a real broker and a real consumer database:
 * each side effect once, per-aggregate order, gaps parked and filled, poison dead-lettered while
 * the stream flows, no loss or double effect when a consumer is SIGKILLed between its commit and
 * its acknowledgement, nor across a rebalance.
 *
 * <p>A transport module subclasses it once per consumer database ({@link #postgres()} true or
 * false) and implements the broker side. Each test uses its own aggregate type, group and consumer
 * name, so tests never see each other's messages.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ConsumerRunnerContract {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private IsolatedDatabase database;
  private DataSource dataSource;
  private final List<ConsumerRunner> runners = new ArrayList<>();
  private String aggregateType;
  private String group;
  private String consumer;
  private volatile CountDownLatch hold = new CountDownLatch(0);

  // ---- what a transport provides ------------------------------------------------------------

  /** True for PostgreSQL as the consumer database, false for MariaDB. */
  protected abstract boolean postgres();

  /**
   * Prepares the broker so that events of {@code aggregateType} published from now on reach the
   * consumer group {@code group} (a topic with several partitions, a bound queue, a stream and
   * durable consumer, a stream and consumer group).
   */
  protected abstract void prepare(String group, String aggregateType) throws Exception;

  /** A new source of the group; sources of one group share its messages. */
  protected abstract MessageSource source(String group, String aggregateType);

  /** Publishes the events in this order and waits for the broker's acknowledgements. */
  protected abstract void publish(List<Event> events) throws Exception;

  /**
   * Publishes a message that is not a valid Tandem CloudEvent (whatever body and headers the
   * transport's publisher would not produce) where consumers of {@code aggregateType} get it.
   */
  protected abstract void publishInvalid(String aggregateType, String key) throws Exception;

  /** A factory a child JVM can use to create the same kind of source. */
  protected abstract Class<? extends SourceFactory> sourceFactory();

  /** System properties the child JVM needs for {@link #sourceFactory()} to reach the broker. */
  protected Map<String, String> childProperties() {
    return Map.of();
  }

  // ---- fixture --------------------------------------------------------------------------------

  @BeforeAll
  void openDatabase() throws Exception {
    database =
        postgres()
            ? TestInfrastructure.postgres().createDatabase("consumer_contract")
            : TestInfrastructure.mariadb().createDatabase("consumer_contract");
    dataSource = database.dataSource();
    Migrations.migrate(dataSource);
    ContractEffects.create(dataSource, postgres());
  }

  @AfterAll
  void closeDatabase() {
    if (database != null) {
      database.close();
    }
  }

  @BeforeEach
  void names() throws Exception {
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    aggregateType = "Contract" + suffix;
    group = "contract-" + suffix;
    consumer = "contract-" + suffix;
    prepare(group, aggregateType);
  }

  @AfterEach
  void closeRunners() {
    hold.countDown();
    runners.forEach(ConsumerRunner::close);
    runners.clear();
  }

  private Event event(String aggregateId, long version, String mode) {
    return Event.builder()
        .aggregate(aggregateType, aggregateId, version)
        .eventType("Changed")
        .payload("{\"mode\":\"" + mode + "\",\"version\":" + version + ",\"extra\":{\"x\":1}}")
        .build();
  }

  private List<Event> stream(int aggregates, int versions) {
    List<Event> events = new ArrayList<>();
    for (int v = 1; v <= versions; v++) {
      for (int a = 0; a < aggregates; a++) {
        events.add(event("agg-" + a, v, "ok"));
      }
    }
    return events;
  }

  private InboxProcessor.Builder processor(AtomicBoolean refuse) {
    return InboxProcessor.builder()
        .dataSource(dataSource)
        .consumer(consumer)
        .retryPolicy(
            RetryPolicy.builder()
                .base(Duration.ofMillis(10))
                .cap(Duration.ofMillis(50))
                .maxAttempts(3)
                .build())
        .on(
            "Changed",
            (c, e) -> {
              if (e.payload().contains("\"hold\"")) {
                hold.await(); // a slow handler: nothing is acknowledged meanwhile
              }
              if (e.payload().contains("\"refuse\"") && refuse.get()) {
                throw new PermanentHandlerException("refused by the contract's rule");
              }
              if (e.payload().contains("\"fail\"")) {
                throw new IllegalStateException("the contract's handler always fails on this");
              }
              ContractEffects.apply(c, consumer, e);
            });
  }

  private ConsumerRunner run(InboxProcessor processor, int concurrency) {
    return run(processor, concurrency, () -> {});
  }

  private ConsumerRunner run(InboxProcessor processor, int concurrency, Runnable afterApplied) {
    ConsumerRunner runner =
        ConsumerRunner.builder()
            .source(source(group, aggregateType))
            .processor(processor)
            .concurrency(concurrency)
            .maxInFlight(64)
            .closeTimeout(Duration.ofSeconds(20))
            .afterApplied(afterApplied)
            .build();
    runners.add(runner);
    runner.start();
    return runner;
  }

  private long effects() throws Exception {
    return ContractEffects.count(dataSource, consumer);
  }

  private void awaitEffects(long expected) {
    Awaitility.await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(() -> assertThat(effects()).isEqualTo(expected));
  }

  private void assertEachOnceInOrder(int aggregates, int versions) throws Exception {
    assertThat(ContractEffects.doubled(dataSource, consumer)).as("doubled effects").isEmpty();
    Map<String, List<Long>> applied = ContractEffects.versionsInApplyOrder(dataSource, consumer);
    assertThat(applied).hasSize(aggregates);
    List<Long> expected = LongStream.rangeClosed(1, versions).boxed().toList();
    applied.forEach(
        (aggregate, order) -> assertThat(order).as("versions of " + aggregate).isEqualTo(expected));
  }

  // ---- the contract ---------------------------------------------------------------------------

  @Test
  void everyEventIsAppliedOnceAndInOrderPerAggregate() throws Exception {
    InboxProcessor processor = processor(new AtomicBoolean()).build();
    run(processor, 4);

    publish(stream(20, 10));

    awaitEffects(200);
    assertEachOnceInOrder(20, 10);
    // A batch's messages are counted after its commit: the effects can be seen a moment earlier.
    Awaitility.await().atMost(WAIT).until(() -> processor.appliedCount() >= 200);
    assertThat(processor.appliedCount()).isEqualTo(200);
  }

  /**
   * The runner's {@code tandem.consumer.lag} counts what is not applied yet, taken from the broker
   * or not (a source that left out what it holds unacknowledged would read 0 here), and falls to 0
   * once everything is applied.
   */
  @Test
  void theLagGaugeCountsWhatIsNotAppliedYetAndFallsToZero() throws Exception {
    hold = new CountDownLatch(1);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    ConsumerRunner runner =
        ConsumerRunner.builder()
            .source(source(group, aggregateType))
            .processor(processor(new AtomicBoolean()).build())
            .maxInFlight(64)
            .closeTimeout(Duration.ofSeconds(20))
            .meterRegistry(meters)
            .build();
    runners.add(runner);
    runner.start();
    Gauge lag = meters.get("tandem.consumer.lag").tag("consumer", consumer).gauge();
    List<Event> events = new ArrayList<>();
    for (int v = 1; v <= 30; v++) {
      events.add(event("agg-" + (v % 3), (v + 2) / 3, "hold"));
    }

    publish(events);

    Awaitility.await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(() -> assertThat(lag.value()).isEqualTo(30.0));
    assertThat(effects()).isZero();
    hold.countDown();
    awaitEffects(30);
    Awaitility.await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(() -> assertThat(lag.value()).isZero());
  }

  @Test
  void duplicateDeliveriesHaveNoSecondEffect() throws Exception {
    InboxProcessor processor = processor(new AtomicBoolean()).build();
    AtomicLong callbacks = new AtomicLong();
    List<String> beforeCommit = Collections.synchronizedList(new ArrayList<>());
    run(
        processor,
        4,
        () -> { // each call follows its own commit and every earlier one: all visible elsewhere
          long n = callbacks.incrementAndGet();
          try {
            long visible = effects();
            if (visible < n) {
              beforeCommit.add("call " + n + " saw " + visible + " effects");
            }
          } catch (Exception e) {
            beforeCommit.add(e.toString());
          }
        });
    List<Event> events = stream(5, 10);

    publish(events);
    publish(events); // the same event ids again, as a relay that died before marking would

    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(processor.duplicateCount()).isEqualTo(50));
    assertThat(effects()).isEqualTo(50);
    assertEachOnceInOrder(5, 10);
    assertThat(callbacks)
        .as("afterApplied calls: one per applied message, none for duplicates")
        .hasValue(50);
    assertThat(beforeCommit).as("afterApplied ran before its commit was visible").isEmpty();
  }

  @Test
  void shuffledVersionsAreParkedAndAppliedInOrder() throws Exception {
    InboxProcessor processor = processor(new AtomicBoolean()).build();
    List<Event> events = stream(5, 10);
    Collections.shuffle(events, new Random(42));
    // The later versions first, so that they arrive early whatever the batches: a batch puts the
    // versions it holds in order by itself, and only a gap between batches parks.
    List<Event> late = events.stream().filter(e -> e.aggregateVersion() > 5).toList();
    List<Event> early = events.stream().filter(e -> e.aggregateVersion() <= 5).toList();

    run(processor, 4);
    publish(late);
    Awaitility.await().atMost(WAIT).until(() -> processor.parkedCount() >= late.size());
    publish(early);

    awaitEffects(50);
    assertEachOnceInOrder(5, 10);
    assertThat(processor.parkedCount()).as("events that arrived early").isPositive();
    assertThat(processor.gaps(Duration.ZERO, 10)).isEmpty();
  }

  @Test
  void aGapWaitsDurablyAndFillsWhenThePredecessorArrives() throws Exception {
    InboxProcessor processor = processor(new AtomicBoolean()).build();
    run(processor, 2);

    publish(
        List.of(
            event("a", 1, "ok"),
            event("a", 3, "ok"),
            event("a", 4, "ok"),
            event("b", 1, "ok"),
            event("b", 2, "ok")));

    awaitEffects(3); // a1, b1, b2
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(processor.parkedCount()).isEqualTo(2));
    List<AggregateGap> gaps = processor.gaps(Duration.ZERO, 10);
    assertThat(gaps).hasSize(1);
    AggregateGap gap = gaps.get(0);
    assertThat(gap.aggregateId()).isEqualTo("a");
    assertThat(gap.waitingFor()).isEqualTo(2);
    assertThat(gap.parked()).isEqualTo(2);
    assertThat(gap.blockingDeadLetter()).isEmpty();
    assertThat(gap.explanation()).contains("wait for version 2");
    assertThat(processor.checkGaps()).as("not overdue before the alert time").isEmpty();

    publish(List.of(event("a", 2, "ok")));

    awaitEffects(6);
    assertThat(ContractEffects.doubled(dataSource, consumer)).isEmpty();
    assertThat(ContractEffects.versionsInApplyOrder(dataSource, consumer))
        .containsEntry("a", List.of(1L, 2L, 3L, 4L))
        .containsEntry("b", List.of(1L, 2L));
    assertThat(processor.gaps(Duration.ZERO, 10)).isEmpty();
  }

  @Test
  void poisonIsDeadLetteredWhileTheStreamFlowsAndCanBeReplayed() throws Exception {
    AtomicBoolean refuse = new AtomicBoolean(true);
    InboxProcessor processor = processor(refuse).build();
    run(processor, 2);

    publishInvalid(aggregateType, "p");
    publish(
        List.of(
            event("p", 1, "refuse"), // refused for good: dead letter, holds p
            event("p", 2, "ok"), // waits behind it
            event("r", 1, "fail"), // fails every attempt: dead letter after 3
            event("q", 1, "ok"),
            event("q", 2, "ok"),
            event("q", 3, "ok")));

    awaitEffects(3); // q1..q3 flowed past the poison
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(processor.deadLetteredCount()).isEqualTo(3));
    List<DeadLetter> dead = processor.deadLetters(DeadLetterStatus.DEAD, 0, 10);
    assertThat(dead)
        .extracting(DeadLetter::reasonClass)
        .containsExactlyInAnyOrder(
            DeadLetterReason.INVALID_MESSAGE,
            DeadLetterReason.HANDLER_REFUSED,
            DeadLetterReason.RETRIES_EXHAUSTED);
    DeadLetter invalid = only(dead, DeadLetterReason.INVALID_MESSAGE);
    assertThat(invalid.eventId()).isNull();
    assertThat(invalid.origin()).isNotBlank();
    DeadLetter refused = only(dead, DeadLetterReason.HANDLER_REFUSED);
    assertThat(refused.aggregateId()).isEqualTo("p");
    assertThat(refused.reason()).contains("refused by the contract's rule");
    DeadLetter exhausted = only(dead, DeadLetterReason.RETRIES_EXHAUSTED);
    assertThat(exhausted.attempts()).isEqualTo(3);
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(processor.gaps(Duration.ZERO, 10))
                    .singleElement()
                    .satisfies(
                        g -> {
                          assertThat(g.aggregateId()).isEqualTo("p");
                          assertThat(g.blockingDeadLetter()).hasValue(refused.id());
                          assertThat(g.explanation()).contains("dead letter #" + refused.id());
                        }));
    assertThatThrownBy(() -> processor.replay(invalid.id()))
        .isInstanceOf(TandemException.class)
        .hasMessageContaining("not a valid Tandem event");

    refuse.set(false); // the operator fixed the rule
    assertThat(processor.replay(refused.id())).isEqualTo(Outcome.APPLIED);

    awaitEffects(5); // p1 replayed, p2 followed from the parking
    assertThat(ContractEffects.versionsInApplyOrder(dataSource, consumer).get("p"))
        .containsExactly(1L, 2L);
    assertThat(processor.deadLetters(DeadLetterStatus.REPLAYED, 0, 10))
        .extracting(DeadLetter::id)
        .containsExactly(refused.id());
    processor.discard(invalid.id());
    assertThat(processor.deadLetters(DeadLetterStatus.DEAD, 0, 10))
        .extracting(DeadLetter::id)
        .containsExactly(exhausted.id());
    assertThat(ContractEffects.doubled(dataSource, consumer)).isEmpty();
  }

  private static DeadLetter only(List<DeadLetter> letters, DeadLetterReason reason) {
    return letters.stream().filter(d -> d.reasonClass() == reason).findFirst().orElseThrow();
  }

  @Test
  @Tag("slow")
  void aConsumerKilledAfterCommitBeforeAckIsRedeliveredWithoutASecondEffect() throws Exception {
    List<Event> events = stream(4, 10);
    publish(events);
    Process child = startChild(10);
    try {
      awaitLine(child, ConsumerChild.STALLED);
      long committed = effects();
      assertThat(committed).as("the stalled transaction committed").isGreaterThanOrEqualTo(10);
      child.destroyForcibly(); // SIGKILL: between the commit and the acknowledgement
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      child.destroyForcibly();
    }

    InboxProcessor processor = processor(new AtomicBoolean()).build();
    run(processor, 4);

    awaitEffects(40);
    assertEachOnceInOrder(4, 10);
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(processor.duplicateCount())
                    .as("the killed consumer's committed, unacknowledged message came again")
                    .isGreaterThanOrEqualTo(1));
  }

  @Test
  @Tag("slow")
  void aRebalanceMidStreamLosesNothingAndDoublesNothing() throws Exception {
    InboxProcessor first = processor(new AtomicBoolean()).build();
    InboxProcessor second = processor(new AtomicBoolean()).build();
    ConsumerRunner a = run(first, 2);
    publish(stream(30, 10));
    Awaitility.await().atMost(WAIT).until(() -> effects() >= 60);

    run(second, 2); // joins the group mid-stream
    Awaitility.await().atMost(WAIT).until(() -> effects() >= 150);
    a.close(); // leaves mid-stream

    awaitEffects(300);
    assertEachOnceInOrder(30, 10);
  }

  private Process startChild(int stallAt) throws Exception {
    // Broker URIs may hold credentials (amqp://guest:guest@...): environment, not -D options.
    JvmProcess.Arguments args = JvmProcess.arguments();
    int n = 0;
    for (Map.Entry<String, String> p : childProperties().entrySet()) {
      args.environment(ConsumerChild.PROPERTY_VARIABLE + n++, p.getKey() + "=" + p.getValue());
    }
    args.add(sourceFactory().getName(), group, aggregateType)
        .secret("TANDEM_CONSUMER_JDBC_URL", database.jdbcUrl())
        .add(consumer, Integer.toString(stallAt));
    return JvmProcess.processBuilder(List.of(), ConsumerChild.class.getName(), args)
        .redirectErrorStream(true)
        .start();
  }

  private static void awaitLine(Process child, String expected) throws Exception {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    long deadline = System.nanoTime() + WAIT.toNanos();
    StringBuilder seen = new StringBuilder();
    String line;
    while ((line = out.readLine()) != null) {
      if (line.contains(expected)) {
        Thread drain =
            new Thread(
                () -> {
                  try {
                    child.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
                  } catch (java.io.IOException ignored) {
                    // the child is gone
                  }
                },
                "contract-child-output");
        drain.setDaemon(true);
        drain.start();
        return;
      }
      if (seen.length() < 20_000) {
        seen.append(line).append('\n');
      }
      if (System.nanoTime() > deadline) {
        break;
      }
    }
    throw new AssertionError(
        "the child consumer never printed "
            + expected
            + "; its output:\n"
            + seen.toString()
                .lines()
                .skip(Math.max(0, seen.toString().lines().count() - 60))
                .collect(Collectors.joining("\n")));
  }
}
