package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The ordering guard on a real database (PostgreSQL), over random deliveries: each aggregate's
 * versions arrive shuffled, some several times (redeliveries of the same event), some only at the
 * end (a gap that fills) and some never (a gap that stays). Whatever the interleaving, each
 * aggregate's versions are applied once each, in order, up to the first version that never came;
 * everything after it waits parked, nothing is dead-lettered.
 */
class OrderingGuardPropertyTest {
  private static InboxDatabase db;

  @BeforeContainer
  static void open() throws SQLException {
    db = InboxDatabase.postgres("ordering_properties");
  }

  @AfterContainer
  static void close() {
    if (db != null) {
      db.close();
    }
  }

  /** One aggregate's fate: how many versions exist, which never come, which come late. */
  record Plan(int versions, Set<Integer> lost, Set<Integer> late) {}

  /** What the property draws: the aggregates' plans and the seed of their interleaving. */
  record Deliveries(List<Plan> aggregates, long seed, int duplicates) {}

  @Provide
  Arbitrary<Deliveries> deliveries() {
    Arbitrary<Plan> plan =
        Arbitraries.integers()
            .between(1, 8)
            .flatMap(
                n -> {
                  Arbitrary<Set<Integer>> some =
                      Arbitraries.integers().between(1, n).set().ofMaxSize(2);
                  return Combinators.combine(some, some)
                      .as((lost, late) -> new Plan(n, lost, late));
                });
    return Combinators.combine(
            plan.list().ofMinSize(1).ofMaxSize(3),
            Arbitraries.longs(),
            Arbitraries.integers().between(0, 10))
        .as(Deliveries::new);
  }

  /** A few interleavings in the default build (about a second each on a busy machine). */
  @Property(tries = 12)
  void eachVersionIsAppliedOnceInOrderUpToTheFirstThatNeverCame(
      @ForAll("deliveries") Deliveries d) {
    check(d);
  }

  /** Many more in CI. */
  @Tag("slow")
  @Property(tries = 300)
  void eachVersionIsAppliedOnceInOrderOverManyInterleavings(@ForAll("deliveries") Deliveries d) {
    check(d);
  }

  private void check(Deliveries d) {
    String consumer = "prop-" + UUID.randomUUID();
    Map<String, List<Long>> applied = new ConcurrentHashMap<>();
    InboxProcessor guard =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .on(
                "Changed",
                (conn, e) ->
                    applied
                        .computeIfAbsent(e.aggregateId(), k -> new ArrayList<>())
                        .add(e.aggregateVersion()))
            .build();
    Random random = new Random(d.seed());
    List<Event> early = new ArrayList<>();
    List<Event> late = new ArrayList<>();
    Map<String, Long> expectedUpTo = new HashMap<>();
    for (int a = 0; a < d.aggregates().size(); a++) {
      Plan plan = d.aggregates().get(a);
      String id = "agg-" + a;
      long upTo = plan.versions();
      for (int v = 1; v <= plan.versions(); v++) {
        if (plan.lost().contains(v)) {
          upTo = Math.min(upTo, v - 1);
          continue;
        }
        Event e =
            Event.builder()
                .aggregate("Thing", id, v)
                .eventType("Changed")
                .payload("{\"v\":" + v + "}")
                .build();
        (plan.late().contains(v) ? late : early).add(e);
      }
      expectedUpTo.put(id, upTo);
    }
    List<Event> all = new ArrayList<>(early);
    all.addAll(late);
    for (int i = 0; i < d.duplicates() && !all.isEmpty(); i++) {
      early.add(all.get(random.nextInt(all.size()))); // a redelivery, same event id
    }
    Collections.shuffle(early, random);
    Collections.shuffle(late, random);
    List<Event> order = new ArrayList<>(early);
    order.addAll(late);
    if (!late.isEmpty() && random.nextBoolean()) {
      order.add(late.get(0)); // redelivered after the gap filled
    }

    for (Event e : order) {
      Outcome outcome = guard.process(TestMessage.of(e));
      assertThat(outcome).isIn(Outcome.APPLIED, Outcome.DUPLICATE, Outcome.PARKED);
    }

    for (Map.Entry<String, Long> expected : expectedUpTo.entrySet()) {
      assertThat(applied.getOrDefault(expected.getKey(), List.of()))
          .as("aggregate %s, delivered in the order %s", expected.getKey(), versions(order))
          .containsExactlyElementsOf(
              LongStream.rangeClosed(1, expected.getValue()).boxed().toList());
    }
    assertThat(guard.deadLetteredCount()).isZero();
    long waiting =
        guard.gaps(java.time.Duration.ZERO, 100).stream().mapToLong(AggregateGap::parked).sum();
    long shouldWait =
        order.stream()
            .filter(e -> e.aggregateVersion() > expectedUpTo.get(e.aggregateId()))
            .map(Event::eventId)
            .distinct()
            .count();
    assertThat(waiting).as("parked behind a gap that stays").isEqualTo(shouldWait);
  }

  private static List<String> versions(List<Event> order) {
    return order.stream().map(e -> e.aggregateId() + "v" + e.aggregateVersion()).toList();
  }
}
