package io.tandem.saga;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.inbox.InboxProcessor;
import io.tandem.jdbc.Migrations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * The saga state machine driven by the real orchestrator and participants on PostgreSQL, through a
 * network the property controls: messages delivered in order, out of order, twice, held back and
 * delivered late (after their command timed out), and timeouts fired at any point; the participants
 * succeed or fail as drawn. Whatever happens, every status change the saga goes through is one the
 * transition table allows, it ends COMPLETED or COMPENSATED, each participant's effect happens at
 * most once, and the end agrees with the effects: completed means every step applied and nothing
 * compensated, compensated means the pivot never applied and every applied compensatable step was
 * compensated after it.
 */
class SagaStateMachinePropertyTest {
  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);
  private static final String[] FORWARD = {"DoA", "DoB", "DoC", "DoD"};

  private static IsolatedDatabase db;
  private static MutableClock clock;
  private static SagaOrchestrator orchestrator;
  private static Network network;
  private static OutboxRelay relay;
  private static volatile Behaviour behaviour;

  /** What the property draws: the participants' answers and the network's actions. */
  record Run(
      boolean aFails,
      boolean bFails,
      boolean pivotFails,
      int dFailures,
      List<Action> actions,
      long seed) {}

  /** The saga data. */
  public record Order(String order) {}

  enum Action {
    DELIVER_OLDEST,
    DELIVER_NEWEST,
    DUPLICATE,
    HOLD_BACK,
    TIME_OUT
  }

  /** The answers of this try's participants. */
  record Behaviour(
      UUID saga, boolean aFails, boolean bFails, boolean pivotFails, AtomicInteger dFailures) {}

  /** A wall clock the property moves forward to fire the orchestrator's timers. */
  static final class MutableClock extends Clock {
    private volatile Instant now = Instant.now();

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  /** Everything the relay published, waiting for the property to deliver it. */
  static final class Network implements Transport {
    final List<Event> inFlight = new ArrayList<>();
    final List<Event> held = new ArrayList<>();
    final List<Event> delivered = new ArrayList<>();
    final Map<String, InboxProcessor> routes = new HashMap<>();

    @Override
    public String name() {
      return "property-network";
    }

    @Override
    public synchronized List<PublishOutcome> publish(List<Event> events, Duration timeout) {
      List<PublishOutcome> acks = new ArrayList<>();
      for (Event e : events) {
        inFlight.add(e);
        acks.add(PublishOutcome.acknowledged(e.eventId()));
      }
      return acks;
    }

    void deliver(Event e) {
      delivered.add(e);
      routes.get(e.aggregateType()).process(message(e));
    }

    @Override
    public void close() {}
  }

  @BeforeContainer
  static void world() throws SQLException {
    db = TestInfrastructure.postgres().createDatabase("saga_properties");
    DataSource ds = db.dataSource();
    Migrations.migrate(ds);
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE effect (seq bigserial PRIMARY KEY, saga_id uuid NOT NULL,"
              + " action text NOT NULL)");
    }
    clock = new MutableClock();
    network = new Network();
    orchestrator =
        SagaOrchestrator.builder()
            .dataSource(ds)
            .name("prop-orchestrator")
            .replyTo("prop-replies")
            .clock(clock)
            .definition(
                SagaDefinition.builder("prop", Order.class)
                    .compensatable("a", "pa", "DoA", "UndoA")
                    .compensatable("b", "pb", "DoB", "UndoB")
                    .pivot("c", "pc", "DoC")
                    .retriable("d", "pd", "DoD")
                    .stepTimeout(STEP_TIMEOUT)
                    .forwardAttempts(2)
                    .compensationAttempts(1000)
                    .retryPolicy(
                        io.tandem.core.RetryPolicy.builder()
                            .base(Duration.ofSeconds(1))
                            .cap(Duration.ofSeconds(2))
                            .build())
                    .build())
            .build();
    network.routes.put("prop-replies", orchestrator.replyProcessor());
    participant(ds, "pa", "DoA", "UndoA");
    participant(ds, "pb", "DoB", "UndoB");
    participant(ds, "pc", "DoC", null);
    participant(ds, "pd", "DoD", null);
    relay = OutboxRelay.builder().dataSource(ds).transport(network).relayId("prop-relay").build();
  }

  @AfterContainer
  static void close() {
    if (relay != null) {
      relay.close();
    }
    if (orchestrator != null) {
      orchestrator.close();
    }
    if (db != null) {
      db.close();
    }
  }

  private static void participant(DataSource ds, String name, String command, String undo) {
    SagaParticipant.Builder b =
        SagaParticipant.builder()
            .dataSource(ds)
            .name(name)
            .clock(clock)
            .command(
                command,
                (conn, cmd) -> {
                  if (fails(command)) {
                    return StepResult.failure(command + " refused");
                  }
                  effect(conn, cmd.sagaId(), command);
                  return StepResult.success();
                });
    if (undo != null) {
      b.compensation(
          undo,
          (conn, cmd) -> {
            effect(conn, cmd.sagaId(), undo);
            return StepResult.success();
          });
    }
    network.routes.put(name, b.build().processor());
  }

  private static boolean fails(String command) {
    Behaviour now = behaviour;
    return switch (command) {
      case "DoA" -> now.aFails();
      case "DoB" -> now.bFails();
      case "DoC" -> now.pivotFails();
      case "DoD" -> now.dFailures().getAndDecrement() > 0;
      default -> false;
    };
  }

  private static void effect(Connection c, UUID saga, String action) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO effect (saga_id, action) VALUES (?, ?)")) {
      ps.setObject(1, saga);
      ps.setString(2, action);
      ps.executeUpdate();
    }
  }

  private static List<String> effects(UUID saga) throws SQLException {
    List<String> actions = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT action FROM effect WHERE saga_id = ? ORDER BY seq")) {
      ps.setObject(1, saga);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          actions.add(rs.getString(1));
        }
      }
    }
    return actions;
  }

  @Provide
  Arbitrary<Run> runs() {
    return Combinators.combine(
            Arbitraries.of(true, false, false, false),
            Arbitraries.of(true, false, false, false),
            Arbitraries.of(true, false, false),
            Arbitraries.integers().between(0, 2),
            Arbitraries.frequencyOf(
                    Tuple.of(4, Arbitraries.just(Action.DELIVER_OLDEST)),
                    Tuple.of(2, Arbitraries.just(Action.DELIVER_NEWEST)),
                    Tuple.of(2, Arbitraries.just(Action.DUPLICATE)),
                    Tuple.of(1, Arbitraries.just(Action.HOLD_BACK)),
                    Tuple.of(1, Arbitraries.just(Action.TIME_OUT)))
                .list()
                .ofMaxSize(25),
            Arbitraries.longs())
        .as(Run::new);
  }

  /** A few runs in the default build (a few seconds each: many transactions per run). */
  @Property(tries = 3)
  void everyRunEndsInATerminalStateTheTableAllowsAndTheEffectsAgree(@ForAll("runs") Run run)
      throws Exception {
    check(run);
  }

  /** Many more in CI. */
  @Tag("slow")
  @Property(tries = 100)
  void manyRunsEndInATerminalStateTheTableAllows(@ForAll("runs") Run run) throws Exception {
    check(run);
  }

  private synchronized void check(Run run) throws Exception {
    network.inFlight.clear();
    network.held.clear();
    network.delivered.clear();
    Random random = new Random(run.seed());
    SagaQueries queries = SagaQueries.of(db.dataSource());
    UUID saga = orchestrator.start("prop", new Order("o-" + run.seed()));
    behaviour =
        new Behaviour(
            saga, run.aFails(), run.bFails(), run.pivotFails(), new AtomicInteger(run.dFailures()));
    List<SagaStatus> path = new ArrayList<>(List.of(SagaStatus.RUNNING));

    for (Action action : run.actions()) {
      publish();
      switch (action) {
        case DELIVER_OLDEST -> {
          if (!network.inFlight.isEmpty()) {
            network.deliver(network.inFlight.remove(0));
          }
        }
        case DELIVER_NEWEST -> {
          if (!network.inFlight.isEmpty()) {
            network.deliver(network.inFlight.remove(network.inFlight.size() - 1));
          }
        }
        case DUPLICATE -> {
          if (!network.delivered.isEmpty()) {
            network.deliver(network.delivered.get(random.nextInt(network.delivered.size())));
          }
        }
        case HOLD_BACK -> {
          if (!network.inFlight.isEmpty()) {
            network.held.add(network.inFlight.remove(0));
          }
        }
        case TIME_OUT -> {
          clock.advance(STEP_TIMEOUT.plusSeconds(1));
          orchestrator.runDueTimers();
        }
      }
      note(path, queries.find(saga).orElseThrow().status());
    }

    // Then the network heals: everything held arrives (late), timers keep firing, until the end.
    for (int round = 0;
        round < 60 && !queries.find(saga).orElseThrow().status().terminal();
        round++) {
      publish();
      List<Event> now = new ArrayList<>(network.held);
      now.addAll(network.inFlight);
      network.held.clear();
      network.inFlight.clear();
      for (Event e : now) {
        network.deliver(e);
        note(path, queries.find(saga).orElseThrow().status());
      }
      publish();
      if (network.inFlight.isEmpty()) {
        clock.advance(STEP_TIMEOUT.plusSeconds(1));
        orchestrator.runDueTimers();
        note(path, queries.find(saga).orElseThrow().status());
      }
    }

    SagaStatus end = queries.find(saga).orElseThrow().status();
    List<String> effects = effects(saga);
    Statistics.label("end").collect(end);
    Statistics.label("late or duplicate deliveries")
        .collect(
            run.actions().contains(Action.HOLD_BACK) || run.actions().contains(Action.DUPLICATE));
    String story = "run " + run + ", statuses " + path + ", effects " + effects;
    for (int i = 1; i < path.size(); i++) {
      assertThat(path.get(i - 1).canBecome(path.get(i))).as(story).isTrue();
    }
    assertThat(end).as(story).isIn(SagaStatus.COMPLETED, SagaStatus.COMPENSATED);
    for (String action : List.of("DoA", "DoB", "DoC", "DoD", "UndoA", "UndoB")) {
      assertThat(effects.stream().filter(action::equals).count()).as(story).isLessThanOrEqualTo(1);
    }
    if (end == SagaStatus.COMPLETED) {
      assertThat(effects).as(story).containsExactlyInAnyOrder(FORWARD);
      assertThat(run.aFails() || run.bFails() || run.pivotFails()).as(story).isFalse();
    } else {
      assertThat(effects).as(story).doesNotContain("DoC", "DoD");
      for (String step : List.of("A", "B")) {
        if (effects.contains("Do" + step)) {
          assertThat(effects.indexOf("Undo" + step))
              .as(story + ": Do" + step + " compensated after it")
              .isGreaterThan(effects.indexOf("Do" + step));
        } else {
          assertThat(effects).as(story).doesNotContain("Undo" + step);
        }
      }
    }
  }

  private static void publish() {
    while (relay.runOnce() > 0) {
      // until nothing is due
    }
  }

  private static void note(List<SagaStatus> path, SagaStatus status) {
    if (path.get(path.size() - 1) != status) {
      path.add(status);
    }
  }

  private static InboundMessage message(Event e) {
    return new InboundMessage() {
      @Override
      public String key() {
        return e.aggregateId();
      }

      @Override
      public String origin() {
        return "property " + e.aggregateType() + " " + e.eventId();
      }

      @Override
      public Map<String, String> rawHeaders() {
        return Map.of();
      }

      @Override
      public byte[] rawBody() {
        return e.payload().getBytes(StandardCharsets.UTF_8);
      }

      @Override
      public Event decode() {
        return e;
      }

      @Override
      public void acknowledge() {}
    };
  }
}
