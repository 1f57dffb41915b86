package io.tandem.nats.internal;

import io.nats.client.Options;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The validated settings of a {@code JetStreamMessageSource}.
 *
 * @param ensureStream the stream to create when it is missing, or null
 * @param filterSubjects empty for the whole stream
 * @param maxDeliver -1 for unlimited
 */
public record PullSettings(
    String servers,
    Duration connectTimeout,
    Consumer<Options.Builder> connectionOptions,
    StreamSetup ensureStream,
    String stream,
    String durable,
    List<String> filterSubjects,
    Duration ackWait,
    int maxAckPending,
    int batchSize,
    long maxDeliver,
    Duration closeTimeout,
    Duration reconnectDelay,
    Duration lagInterval) {

  /** The durable pull consumer: explicit acks, from the start of the stream. */
  ConsumerConfiguration consumerConfiguration() {
    ConsumerConfiguration.Builder builder =
        ConsumerConfiguration.builder()
            .durable(durable)
            .ackPolicy(AckPolicy.Explicit)
            .deliverPolicy(DeliverPolicy.All)
            .ackWait(ackWait)
            .maxAckPending(maxAckPending)
            .maxDeliver(maxDeliver);
    if (filterSubjects.size() == 1) {
      builder.filterSubject(filterSubjects.get(0)); // understood by servers before 2.10 too
    } else if (!filterSubjects.isEmpty()) {
      builder.filterSubjects(filterSubjects);
    }
    return builder.build();
  }

  /** How many messages one pull asks for: never more than may be pending. */
  int pullSize() {
    return Math.min(batchSize, maxAckPending);
  }
}
