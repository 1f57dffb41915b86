package io.tandem.nats.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.tandem.core.Event;
import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.inbox.contract.ConsumerRunnerContract;
import io.tandem.inbox.contract.SourceFactory;
import io.tandem.nats.JetStreamTransport;
import io.tandem.nats.NatsCloudEventsCodec;
import io.tandem.nats.SubjectRouter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;

/**
 * The consumer contract with NATS JetStream: each aggregate type has a stream bound to {@code
 * tandem.<type>.>}, each group is a durable pull consumer on it ({@link NatsContractSources}), and
 * events are published by {@link JetStreamTransport} with its default router. Streams are deleted
 * after the class.
 *
 * <p>A batch that repeats events already published (the contract's stand-in for a relay that died
 * before marking them) is published without {@code Nats-Msg-Id}: within its duplicate window
 * JetStream would drop the repeats at the stream, and the contract wants them to reach the consumer
 * as they do after the window, to show the inbox ignores them.
 */
abstract class NatsConsumerContract extends ConsumerRunnerContract {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final Set<String> streams = ConcurrentHashMap.newKeySet();
  private final Set<UUID> published = ConcurrentHashMap.newKeySet();
  private final NatsCloudEventsCodec codec = NatsCloudEventsCodec.create("/tandem/contract");
  private JetStreamTransport transport;
  private Connection admin;

  @Override
  protected void prepare(String group, String aggregateType) throws Exception {
    String stream = NatsContractSources.stream(aggregateType);
    streams.add(stream);
    admin()
        .jetStreamManagement()
        .addStream(
            StreamConfiguration.builder()
                .name(stream)
                .subjects(NatsContractSources.subjects(aggregateType))
                .storageType(StorageType.File)
                .build());
  }

  @Override
  protected MessageSource source(String group, String aggregateType) {
    return NatsContractSources.source(group, aggregateType);
  }

  @Override
  protected void publish(List<Event> events) throws Exception {
    if (events.stream().anyMatch(e -> published.contains(e.eventId()))) {
      publishAgain(events);
      return;
    }
    if (transport == null) {
      transport =
          JetStreamTransport.builder()
              .url(NatsContractSources.url())
              .source("/tandem/contract")
              .subjectRouter(SubjectRouter.byAggregate())
              .build();
    }
    List<PublishOutcome> outcomes = transport.publish(events, TIMEOUT);
    assertThat(outcomes).allSatisfy(o -> assertThat(o.acknowledged()).as(o.toString()).isTrue());
    events.forEach(e -> published.add(e.eventId()));
  }

  /** The same messages as the transport's, without the de-duplication header. */
  private void publishAgain(List<Event> events) throws Exception {
    JetStream jetStream = admin().jetStream();
    List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
    for (Event event : events) {
      NatsMessage message =
          (NatsMessage)
              codec.encode(
                  "tandem."
                      + event.aggregateType().toLowerCase(java.util.Locale.ROOT)
                      + "."
                      + SubjectRouter.token(event.aggregateId()),
                  event);
      message.getHeaders().remove(NatsCloudEventsCodec.MSG_ID_HEADER);
      acks.add(jetStream.publishAsync(message));
    }
    for (CompletableFuture<PublishAck> ack : acks) {
      assertThat(ack.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).isDuplicate()).isFalse();
    }
  }

  /** A message on the aggregate type's subjects with no CloudEvents headers and a garbage body. */
  @Override
  protected void publishInvalid(String aggregateType, String key) throws Exception {
    NatsMessage message =
        NatsMessage.builder()
            .subject(
                "tandem."
                    + aggregateType.toLowerCase(java.util.Locale.ROOT)
                    + "."
                    + SubjectRouter.token(key))
            .headers(new Headers().put("note", "not a CloudEvent"))
            .data("garbage, not JSON".getBytes(StandardCharsets.UTF_8))
            .build();
    admin().jetStream().publish(message);
  }

  @Override
  protected Class<? extends SourceFactory> sourceFactory() {
    return NatsContractSources.class;
  }

  @Override
  protected Map<String, String> childProperties() {
    return Map.of(NatsContractSources.URL_PROPERTY, NatsContractSources.url());
  }

  private synchronized Connection admin() throws Exception {
    if (admin == null) {
      admin = Nats.connect(NatsContractSources.url());
    }
    return admin;
  }

  @AfterAll
  void deleteStreams() throws Exception {
    if (transport != null) {
      transport.close();
    }
    JetStreamManagement jsm = admin().jetStreamManagement();
    for (String stream : streams) {
      try {
        jsm.deleteStream(stream);
      } catch (JetStreamApiException e) {
        // already gone
      }
    }
    admin.close();
  }
}
