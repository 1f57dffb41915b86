package io.tandem.cdc;

import io.tandem.core.Event;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.Outbox;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.PostgresServer;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Servers and helpers of the CDC tests. */
final class CdcTestSupport {
  private static PostgresServer logical;

  private CdcTestSupport() {}

  /**
   * A PostgreSQL with wal_level = logical: the shared one if it has it (the machine's, configured
   * by .ci/configure-postgresql), else an embedded one of this JVM started with it.
   */
  static synchronized PostgresServer logicalPostgres() {
    if (logical == null) {
      PostgresServer shared = TestInfrastructure.postgres();
      logical =
          "logical".equals(walLevel(shared.dataSource()))
              ? shared
              : PostgresServer.embedded()
                  .serverConfig("wal_level", "logical")
                  .serverConfig("max_replication_slots", "20")
                  .serverConfig("max_wal_senders", "20")
                  .start();
      dropSlotsLeftByKilledRuns(logical);
    }
    return logical;
  }

  /**
   * Slots of CDC test databases that a run killed before its clean-up left on a shared server:
   * inactive, in a database named {@code cdc_*} created more than an hour ago (so no running test's
   * slot, of this run or another on the machine). They would hold WAL for good. Dropped once per
   * JVM; skipped where the user may not read the data directory's file times.
   */
  private static void dropSlotsLeftByKilledRuns(PostgresServer server) {
    if (server.isEmbedded()) {
      return;
    }
    try (Connection c = server.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "SELECT pg_drop_replication_slot(r.slot_name) FROM pg_replication_slots r"
              + " JOIN pg_database d ON d.datname = r.database"
              + " WHERE NOT r.active AND r.database LIKE 'cdc\\_%'"
              + " AND (pg_stat_file('base/' || d.oid || '/PG_VERSION')).modification"
              + " < now() - interval '1 hour'");
    } catch (SQLException e) {
      // not allowed here (pg_stat_file needs a superuser or pg_read_server_files): nothing swept
    }
  }

  static IsolatedDatabase migratedDatabase(String name) {
    IsolatedDatabase database = logicalPostgres().createDatabase(name);
    Migrations.migrate(database.dataSource());
    return database;
  }

  /**
   * Drops the test database's replication slots, then the database. A slot whose client was just
   * ended stays active until its WAL sender exits, and PostgreSQL refuses to drop a database with
   * an active slot (an inactive one goes with the database): left behind, a slot holds WAL on the
   * server for good. So this ends the clients and drops the slots until none is left, or fails.
   */
  static void dropSlotsAndClose(IsolatedDatabase database) {
    if (database == null) {
      return;
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try (Connection c = database.dataSource().getConnection();
        Statement s = c.createStatement()) {
      while (true) {
        s.execute(
            "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
                + " WHERE database = current_database() AND active_pid IS NOT NULL");
        s.execute(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                + " WHERE database = current_database() AND NOT active");
        if (slotsOf(s) == 0) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "replication slots of " + database + " still active after 30 s: drop them by hand");
        }
        Thread.sleep(100);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    database.close();
  }

  private static long slotsOf(Statement s) throws SQLException {
    try (ResultSet rs =
        s.executeQuery(
            "SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static String walLevel(DataSource dataSource) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW wal_level")) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static String unique(String prefix) {
    return prefix + "_" + UUID.randomUUID().toString().substring(0, 8);
  }

  static String newTopic(String prefix) {
    String topic = unique(prefix).replace('_', '-');
    TestInfrastructure.kafka().createTopic(topic, 3);
    return topic;
  }

  static KafkaTransport transport(String topic) {
    return KafkaTransport.builder()
        .bootstrapServers(TestInfrastructure.kafka().bootstrapServers())
        .source("/tandem/orders-service")
        .topicRouter(TopicRouter.fixed(topic))
        .build();
  }

  /** Appends each event in its own transaction, as separate writers would. */
  static void append(DataSource dataSource, List<Event> events) throws SQLException {
    Outbox outbox = Outbox.create();
    for (Event event : events) {
      Transactions.inTransaction(
          dataSource,
          c -> {
            outbox.append(c, event);
            return null;
          });
    }
  }

  static long count(DataSource dataSource, String sql) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every record of {@code topic} until {@code count} arrived or 60 s passed. */
  static List<ConsumerRecord<String, byte[]>> read(String topic, int count) {
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestInfrastructure.kafka().bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class))) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (records.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
      // anything beyond count that is already there (duplicates)
      consumer.poll(Duration.ofMillis(500)).forEach(records::add);
      return records;
    }
  }

  static String header(ConsumerRecord<String, byte[]> record, String name) {
    var h = record.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
  }
}
