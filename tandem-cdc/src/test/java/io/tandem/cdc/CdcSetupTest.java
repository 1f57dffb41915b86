package io.tandem.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.jdbc.Migrations;
import io.tandem.kafka.KafkaTransport;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.PostgresServer;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Each setup mistake stops the start with one message that says what to change. */
@org.junit.jupiter.api.Tag("slow")
class CdcSetupTest {
  private static IsolatedDatabase database;
  private static KafkaTransport transport;

  @BeforeAll
  static void setUp() {
    database = CdcTestSupport.migratedDatabase("cdc_setup");
    transport = CdcTestSupport.transport(CdcTestSupport.newTopic("cdc-setup"));
  }

  @AfterAll
  static void tearDown() {
    transport.close();
    CdcTestSupport.dropSlotsAndClose(database);
  }

  private static CdcRelay.Builder relay(String jdbcUrl) {
    return CdcRelay.builder()
        .jdbcUrl(jdbcUrl)
        .transport(transport)
        .slotName(CdcTestSupport.unique("setup"))
        .startTimeout(Duration.ofSeconds(60));
  }

  @Test
  void walLevelOtherThanLogicalIsRefused() {
    PostgresServer shared = TestInfrastructure.postgres();
    PostgresServer replica =
        "logical".equals(CdcTestSupport.walLevel(shared.dataSource()))
            ? PostgresServer.embedded().start()
            : shared;
    try (IsolatedDatabase db = replica.createDatabase("cdc_wal_level")) {
      Migrations.migrate(db.dataSource());
      assertThatThrownBy(() -> relay(db.jdbcUrl()).build().start())
          .isInstanceOf(CdcSetupException.class)
          .hasMessageContaining("wal_level is 'replica'")
          .hasMessageContaining("ALTER SYSTEM SET wal_level = logical");
    } finally {
      if (replica != shared) {
        replica.close();
      }
    }
  }

  @Test
  void aUserWithoutReplicationIsRefused() throws Exception {
    String role = CdcTestSupport.unique("norepl");
    try (Connection c = database.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + role + " LOGIN NOREPLICATION");
      s.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + role);
    }
    String url = database.jdbcUrl().replaceAll("user=[^&]*", "user=" + role);
    try {
      assertThatThrownBy(() -> relay(url).build().start())
          .isInstanceOf(CdcSetupException.class)
          .hasMessageContaining("'" + role + "' lacks the REPLICATION privilege")
          .hasMessageContaining("ALTER ROLE " + role + " REPLICATION");
    } finally {
      try (Connection c = database.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM " + role);
        s.execute("DROP ROLE " + role);
      }
    }
  }

  @Test
  void aSlotHeldByAnotherClientIsRefused() {
    String slot = CdcTestSupport.unique("held");
    try (CdcRelay first = relay(database.jdbcUrl()).slotName(slot).build()) {
      first.start();
      assertThatThrownBy(() -> relay(database.jdbcUrl()).slotName(slot).build().start())
          .isInstanceOf(CdcSetupException.class)
          .hasMessageContaining("Replication slot '" + slot + "' is in use by another client")
          .hasMessageContaining("stop that relay, or give this one its own slot name");
    }
  }

  @Test
  void aPublicationThatDoesNotCoverTheOutboxIsRefused() throws Exception {
    String publication = CdcTestSupport.unique("elsewhere");
    try (Connection c = database.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE PUBLICATION " + publication + " FOR TABLE tandem_relay_instance");
    }
    assertThatThrownBy(
            () ->
                relay(database.jdbcUrl())
                    .publicationName(publication)
                    .createPublication(false)
                    .build()
                    .start())
        .isInstanceOf(CdcSetupException.class)
        .hasMessageContaining(
            "Publication '" + publication + "' does not cover public.tandem_outbox")
        .hasMessageContaining(
            "ALTER PUBLICATION " + publication + " ADD TABLE public.tandem_outbox");
  }

  @Test
  void aMissingPublicationIsRefusedWhenTheRelayMayNotCreateIt() {
    String publication = CdcTestSupport.unique("missing");
    assertThatThrownBy(
            () ->
                relay(database.jdbcUrl())
                    .publicationName(publication)
                    .createPublication(false)
                    .build()
                    .start())
        .isInstanceOf(CdcSetupException.class)
        .hasMessageContaining("Publication '" + publication + "' does not exist")
        .hasMessageContaining("tandem migrate --cdc-publication " + publication);
    assertThat(new CdcOperations(database.dataSource()).createPublication(publication)).isTrue();
    assertThat(new CdcOperations(database.dataSource()).createPublication(publication)).isFalse();
  }
}
