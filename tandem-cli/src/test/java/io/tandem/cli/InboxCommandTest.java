package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.core.Event;
import io.tandem.inbox.InboxOperations;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.PermanentHandlerException;
import io.tandem.inbox.TestMessage;
import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code tandem inbox dead-letters|gaps|advance|advances|retention} on a real consumer database.
 */
class InboxCommandTest {
  private static IsolatedDatabase db;
  private static String url;

  /** Account a-1 v1 is refused by the handler (a dead letter), so v2 waits parked behind it. */
  @BeforeAll
  static void aDeadLetterAndAGap() {
    db = TestInfrastructure.postgres().createDatabase("cli_inbox");
    url = db.jdbcUrl();
    Migrations.migrate(db.dataSource());
    InboxProcessor billing =
        InboxProcessor.builder()
            .dataSource(db.dataSource())
            .consumer("billing")
            .ordered(true)
            .on(
                "Charged",
                (conn, e) -> {
                  if (e.payload().contains("poison")) {
                    throw new PermanentHandlerException("card number format rejected");
                  }
                })
            .build();
    billing.process(TestMessage.of(event(1, "{\"card\":\"poison\"}")));
    billing.process(TestMessage.of(event(2, "{\"card\":\"4242\"}")));
  }

  private static Event event(long version, String payload) {
    return event("a-1", version, payload);
  }

  private static Event event(String account, long version, String payload) {
    return Event.builder()
        .aggregate("Account", account, version)
        .eventType("Charged")
        .payload(payload)
        .build();
  }

  @AfterAll
  static void drop() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void deadLettersAreListedWithWhyTheyFailed() throws Exception {
    Cli text = Cli.run("inbox", "dead-letters", "--consumer", "billing", "--jdbc-url", url);
    assertThat(text.status()).as(text.err()).isZero();
    assertThat(text.out())
        .contains(
            "Account/a-1 v1 Charged", "DEAD", "HANDLER_REFUSED", "card number format rejected")
        .endsWith("1 dead letter DEAD\n");

    Cli json =
        Cli.run("inbox", "dead-letters", "--consumer", "billing", "--json", "--jdbc-url", url);
    JsonNode letter = new ObjectMapper().readTree(json.out().strip());
    assertThat(letter.get("aggregate_version").asLong()).isEqualTo(1);
    assertThat(letter.get("raw_body").asText()).isEqualTo("{\"card\":\"poison\"}");
    assertThat(letter.get("origin").asText()).startsWith("test ");

    Cli replayed =
        Cli.run(
            "inbox",
            "dead-letters",
            "--consumer",
            "billing",
            "--status",
            "replayed",
            "--jdbc-url",
            url);
    assertThat(replayed.out()).isEqualTo("0 dead letters REPLAYED\n");
    Cli otherConsumer = Cli.run("inbox", "dead-letters", "--consumer", "audit", "--jdbc-url", url);
    assertThat(otherConsumer.out()).isEqualTo("0 dead letters DEAD\n");
    assertThat(InboxOperations.create(db.dataSource()).openDeadLetters("billing")).isEqualTo(1);
    assertThat(InboxOperations.create(db.dataSource()).openDeadLetters("audit")).isZero();
  }

  @Test
  void aGapNamesTheDeadLetterThatHoldsIt() throws Exception {
    Cli text = Cli.run("inbox", "gaps", "--consumer", "billing", "--jdbc-url", url);
    assertThat(text.status()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("Account/a-1 waits for v1 (1 parked")
        .endsWith("1 waiting aggregate\n");

    Cli json = Cli.run("inbox", "gaps", "--consumer", "billing", "--json", "--jdbc-url", url);
    JsonNode gap = new ObjectMapper().readTree(json.out().strip());
    assertThat(gap.get("waiting_for").asLong()).isEqualTo(1);
    assertThat(gap.get("blocking_dead_letter").isNumber()).isTrue();

    Cli later =
        Cli.run("inbox", "gaps", "--consumer", "billing", "--older-than", "1h", "--jdbc-url", url);
    assertThat(later.out()).isEqualTo("0 waiting aggregates\n");
  }

  @Test
  void advancePastAVersionThatWillNeverComeIsRecordedAndLetsTheNextThrough() throws Exception {
    List<String> applied = new ArrayList<>();
    InboxProcessor ledger =
        InboxProcessor.builder()
            .dataSource(db.dataSource())
            .consumer("ledger")
            .on("Charged", (conn, e) -> applied.add("v" + e.aggregateVersion()))
            .build();
    ledger.process(TestMessage.of(event("a-2", 1, "{}")));
    ledger.process(TestMessage.of(event("a-2", 3, "{}"))); // v2 was skipped at the producer

    Cli gaps = Cli.run("inbox", "gaps", "--consumer", "ledger", "--jdbc-url", url);
    assertThat(gaps.out())
        .contains(
            "tandem inbox advance --consumer ledger --aggregate-type Account --aggregate-id a-2"
                + " --to-version 2 --reason");

    Cli tooFar =
        Cli.run(
            "inbox",
            "advance",
            "--consumer",
            "ledger",
            "--aggregate-type",
            "Account",
            "--aggregate-id",
            "a-2",
            "--to-version",
            "3",
            "--reason",
            "oops",
            "--jdbc-url",
            url);
    assertThat(tooFar.status()).isNotZero();
    assertThat(tooFar.err()).contains("version 3 of Account/a-2 is parked");

    Cli advance =
        Cli.run(
            "inbox",
            "advance",
            "--consumer",
            "ledger",
            "--aggregate-type",
            "Account",
            "--aggregate-id",
            "a-2",
            "--to-version",
            "2",
            "--reason",
            "v2 skipped, OPS-9",
            "--operator",
            "alice",
            "--jdbc-url",
            url);
    assertThat(advance.status()).as(advance.err()).isZero();
    assertThat(advance.out())
        .contains("consumer ledger advanced Account/a-2 from v1 to v2 (advance #")
        .contains("by alice): v2 skipped, OPS-9");

    assertThat(ledger.drainReady()).as("what the running consumer's sweep does").isEqualTo(1);
    assertThat(applied).containsExactly("v1", "v3");

    Cli advances =
        Cli.run("inbox", "advances", "--consumer", "ledger", "--json", "--jdbc-url", url);
    JsonNode record = new ObjectMapper().readTree(advances.out().strip());
    assertThat(record.get("reason").asText()).isEqualTo("v2 skipped, OPS-9");
    assertThat(record.get("advanced_by").asText()).isEqualTo("alice");
    assertThat(record.get("from_version").asLong()).isEqualTo(1);
    assertThat(record.get("to_version").asLong()).isEqualTo(2);
    assertThat(Cli.run("inbox", "advances", "--consumer", "ledger", "--jdbc-url", url).out())
        .contains("Account/a-2 v1 -> v2")
        .endsWith("1 advance\n");
  }

  @Test
  void retentionRefusesToPurgeWithinTheReplayWindow() {
    Cli tooShort =
        Cli.run("inbox", "retention", "--older-than", "1d", "--dry-run", "--jdbc-url", url);
    assertThat(tooShort.status()).isEqualTo(2);
    assertThat(tooShort.err())
        .contains(
            "--older-than PT24H is shorter than the broker's maximum replay window"
                + " (--max-replay-window) PT168H");

    Cli dry = Cli.run("inbox", "retention", "--dry-run", "--jdbc-url", url);
    assertThat(dry.status()).as(dry.err()).isZero();
    assertThat(dry.out()).isEqualTo("would purge 0 inbox records processed more than PT336H ago\n");
  }

  @Test
  void aTooLargeLimitIsRefusedBeforeConnecting() {
    Cli limit =
        Cli.run(
            "inbox",
            "gaps",
            "--consumer",
            "billing",
            "--limit",
            "10001",
            "--jdbc-url",
            "jdbc:postgresql://127.0.0.1:1/billing");
    assertThat(limit.status()).isEqualTo(2);
    assertThat(limit.err())
        .contains("--limit must be between 1 and 10000, was 10001")
        .doesNotContain("cannot connect");
  }

  @Test
  void theConsumerIsRequired() {
    Cli missing = Cli.run("inbox", "gaps", "--jdbc-url", url);
    assertThat(missing.status()).isEqualTo(2);
    assertThat(missing.err()).contains("--consumer");
  }
}
