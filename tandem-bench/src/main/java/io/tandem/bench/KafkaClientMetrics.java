package io.tandem.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Totals over every Kafka client of this JVM, read from the metrics the clients register in the
 * platform MBean server: how many requests the broker had to answer, a diagnostic of the saga
 * benchmark. Clients closed between two samples take their counts with them.
 */
final class KafkaClientMetrics {
  /** Totals at one moment. */
  record Sample(
      double producerRequests,
      double recordsSent,
      double bytesSent,
      double consumerRequests,
      double fetches,
      double recordsConsumed,
      double offsetCommits) {

    Sample minus(Sample earlier) {
      return new Sample(
          producerRequests - earlier.producerRequests,
          recordsSent - earlier.recordsSent,
          bytesSent - earlier.bytesSent,
          consumerRequests - earlier.consumerRequests,
          fetches - earlier.fetches,
          recordsConsumed - earlier.recordsConsumed,
          offsetCommits - earlier.offsetCommits);
    }

    /** For example {@code produce requests 3.1, fetches 9.4, offset commits 0.8, ...}. */
    String perUnit(double units) {
      return String.format(
          Locale.ROOT,
          "produce-side requests %.2f (records sent %.2f, bytes sent %.0f), consumer-side requests %.2f (fetches"
              + " %.2f, records consumed %.2f, offset commits %.2f)",
          producerRequests / units,
          recordsSent / units,
          bytesSent / units,
          consumerRequests / units,
          fetches / units,
          recordsConsumed / units,
          offsetCommits / units);
    }
  }

  private KafkaClientMetrics() {}

  static Sample sample() {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    return new Sample(
        sum(server, "kafka.producer:type=producer-metrics,client-id=*", "request-total"),
        sum(server, "kafka.producer:type=producer-metrics,client-id=*", "record-send-total"),
        sum(server, "kafka.producer:type=producer-metrics,client-id=*", "outgoing-byte-total"),
        sum(server, "kafka.consumer:type=consumer-metrics,client-id=*", "request-total"),
        sum(
            server,
            "kafka.consumer:type=consumer-fetch-manager-metrics,client-id=*",
            "fetch-total"),
        sum(
            server,
            "kafka.consumer:type=consumer-fetch-manager-metrics,client-id=*",
            "records-consumed-total"),
        sum(
            server,
            "kafka.consumer:type=consumer-coordinator-metrics,client-id=*",
            "commit-total"));
  }

  private static double sum(MBeanServer server, String pattern, String attribute) {
    double total = 0;
    try {
      for (ObjectName name : server.queryNames(new ObjectName(pattern), null)) {
        Object value = server.getAttribute(name, attribute);
        if (value instanceof Number n && Double.isFinite(n.doubleValue())) {
          total += n.doubleValue();
        }
      }
    } catch (JMException e) {
      throw new IllegalStateException("cannot read Kafka client metric " + attribute, e);
    }
    return total;
  }
}
