package io.tandem.drill;

import io.tandem.inbox.DeadLetter;
import io.tandem.inbox.DeadLetterStatus;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.Outcome;
import io.tandem.testkit.JvmProcess;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A poison event is quarantined (dead-lettered), then replayed by the operator. */
final class QuarantineDrill {

  private final DrillEnvironment env;
  private final DrillSettings settings;

  QuarantineDrill(DrillEnvironment env) {
    this.env = env;
    this.settings = env.settings();
  }

  private Scenario scenario(String name, boolean piped) throws SQLException {
    return new Scenario(name, settings, env.postgres(), env.postgres(), env.kafka(), piped);
  }

  /** A poison event is quarantined (dead-lettered), then replayed by the operator. */
  DrillResult quarantineReplay(String name) throws Exception {
    try (Scenario s = scenario(name, false)) {
      List<String> detail = new ArrayList<>();
      detail.add(
          Protection.line(
              settings,
              "failing events are dead-lettered (quarantined) and replayable",
              "the consumer logs and drops an event whose effect fails"));
      int poisonAt = settings.events() / 2;
      JvmProcess consumer = s.consumerProcess(null, Protection.consumerMode(settings));
      JvmProcess relay = s.relayProcess(null);
      Scenario.awaitAllReady(consumer, relay);
      JvmProcess service = s.serviceProcess(null, 0, "--poison-at", Integer.toString(poisonAt));
      service.awaitExit(Faults.exitWait(settings));
      InboxProcessor operator =
          InboxProcessor.builder()
              .dataSource(s.consumer())
              .consumer(RoleMain.CONSUMER)
              .onAnyEventType(1, DrillEffects::apply)
              .build();
      boolean quarantined =
          Scenario.await(
              () -> !operator.deadLetters(DeadLetterStatus.DEAD, 0, 10).isEmpty(),
              Duration.ofSeconds(settings.protection() ? settings.timeout().toSeconds() : 10));
      long faultAt = System.nanoTime();
      if (quarantined) {
        long appliedBefore = s.count(s.consumer(), "SELECT count(*) FROM drill_effects");
        DeadLetter letter = operator.deadLetters(DeadLetterStatus.DEAD, 0, 10).get(0);
        detail.add(
            "event of change "
                + poisonAt
                + " quarantined as dead letter #"
                + letter.id()
                + " ("
                + letter.reason()
                + "); "
                + appliedBefore
                + " effects applied meanwhile");
        try (Connection c = s.consumer().getConnection();
            Statement st = c.createStatement()) {
          st.executeUpdate("UPDATE drill_rules SET enabled = false WHERE name = 'reject-poison'");
        }
        faultAt = System.nanoTime();
        Outcome outcome = operator.replay(letter.id());
        detail.add("operator fixed the rule and replayed #" + letter.id() + ": " + outcome);
      } else {
        detail.add("no dead letter appeared: the poison event was not quarantined");
      }
      boolean settled = s.awaitSettled(null);
      return s.verdict(faultAt, settled, quarantined, detail);
    }
  }
}
