package io.tandem.nats.contract;

import io.tandem.inbox.contract.SourceFactory;
import io.tandem.nats.JetStreamMessageSource;
import java.time.Duration;
import java.util.Locale;

/**
 * The contract's sources, in the test JVM and in the child JVM of the SIGKILL test: the group is a
 * durable consumer of the aggregate type's stream, with a 2 s ack wait so that what a closed or
 * killed source held comes again quickly. The server is named by system property {@value
 * #URL_PROPERTY} (else {@code TANDEM_NATS_URL}, else the local default).
 */
public final class NatsContractSources implements SourceFactory {
  static final String URL_PROPERTY = "tandem.nats.url";
  static final Duration ACK_WAIT = Duration.ofSeconds(2);

  public NatsContractSources() {}

  static String url() {
    String value = System.getProperty(URL_PROPERTY);
    if (value == null || value.isBlank()) {
      value = System.getenv("TANDEM_NATS_URL");
    }
    return value == null || value.isBlank() ? "nats://127.0.0.1:4222" : value.strip();
  }

  /** The aggregate type's stream, e.g. {@code CONTRACT_CONTRACT1A2B3C}. */
  static String stream(String aggregateType) {
    return "CONTRACT_" + aggregateType.toUpperCase(Locale.ROOT);
  }

  /** What {@code SubjectRouter.byAggregate()} publishes the aggregate type's events to. */
  static String subjects(String aggregateType) {
    return "tandem." + aggregateType.toLowerCase(Locale.ROOT) + ".>";
  }

  static JetStreamMessageSource source(String group, String aggregateType) {
    return JetStreamMessageSource.builder().url(url()).stream(stream(aggregateType))
        .durable(group)
        .ensureStream(subjects(aggregateType))
        .ackWait(ACK_WAIT)
        .reconnectDelay(Duration.ofMillis(200))
        .lagInterval(Duration.ofMillis(200))
        .build();
  }

  @Override
  public JetStreamMessageSource create(String group, String aggregateType) {
    return source(group, aggregateType);
  }
}
