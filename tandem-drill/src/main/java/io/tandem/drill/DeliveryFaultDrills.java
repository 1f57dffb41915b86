package io.tandem.drill;

import io.tandem.outbox.OutboxOperations;
import io.tandem.testkit.JvmProcess;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The drills that put a faulty pipe between the relay's topic and the consumer's: every other
 * message delivered twice, or every message shuffled.
 */
final class DeliveryFaultDrills {

  private final DrillEnvironment env;
  private final DrillSettings settings;

  DeliveryFaultDrills(DrillEnvironment env) {
    this.env = env;
    this.settings = env.settings();
  }

  private Scenario scenario(String name, boolean piped) throws SQLException {
    return new Scenario(name, settings, env.postgres(), env.postgres(), env.kafka(), piped);
  }

  /** Messages reach the consumer twice (a pipe between the relay's topic and the consumer's). */
  DrillResult duplicateDelivery(String name) throws Exception {
    return piped(
        name,
        records -> {
          List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
          for (int i = 0; i < records.size(); i++) {
            out.add(records.get(i));
            if (i >= 5 && i % 2 == 0) {
              out.add(records.get(i - 5)); // a redelivery, a little later
            }
          }
          out.addAll(records.subList(Math.max(0, records.size() - 5), records.size()));
          return out;
        },
        "every other message delivered a second time",
        Protection.line(settings, Protection.INBOX, Protection.NO_INBOX),
        Protection.consumerMode(settings));
  }

  /** Versions of an aggregate reach the consumer shuffled. */
  DrillResult outOfOrder(String name) throws Exception {
    return piped(
        name,
        records -> {
          List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>(records);
          Collections.shuffle(out, new Random(42));
          return out;
        },
        "all messages delivered in a shuffled order",
        Protection.line(
            settings,
            "the consumer's ordering guard parks early versions",
            "the consumer applies events as they come (ordering guard off)"),
        settings.protection() ? new String[0] : new String[] {"--unordered"});
  }

  private DrillResult piped(
      String name,
      UnaryOperator<List<ConsumerRecord<byte[], byte[]>>> fault,
      String faultText,
      String protectionText,
      String[] consumerArgs)
      throws Exception {
    try (Scenario s = scenario(name, true)) {
      List<String> detail = new ArrayList<>();
      detail.add(protectionText);
      JvmProcess consumer = s.consumerProcess(null, consumerArgs);
      JvmProcess relay = s.relayProcess(null);
      JvmProcess service = s.serviceProcess(null, 0);
      Scenario.awaitAllReady(consumer, relay);
      service.awaitExit(Faults.exitWait(settings));
      OutboxOperations outbox = OutboxOperations.create(s.service());
      boolean published =
          Scenario.await(
              () -> {
                try {
                  return outbox.status().pending() == 0;
                } catch (RuntimeException e) {
                  return false;
                }
              },
              settings.timeout());
      List<ConsumerRecord<byte[], byte[]>> records = Broker.readAll(env.kafka(), s.relayTopic);
      List<ConsumerRecord<byte[], byte[]>> delivered = fault.apply(records);
      long faultAt = System.nanoTime();
      Broker.send(env.kafka(), s.consumerTopic, delivered);
      detail.add(
          faultText
              + ": "
              + records.size()
              + " published records, "
              + delivered.size()
              + " delivered");
      boolean settled = published && s.awaitSettled(null);
      return s.verdict(faultAt, settled, !records.isEmpty(), detail);
    }
  }
}
