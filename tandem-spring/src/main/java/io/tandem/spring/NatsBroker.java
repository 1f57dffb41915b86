package io.tandem.spring;

import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.Transport;
import io.tandem.nats.JetStreamMessageSource;
import io.tandem.nats.JetStreamTransport;
import io.tandem.nats.SubjectRouter;
import java.util.List;

/**
 * NATS JetStream: subjects {@code tandem.<type>.<id>} in one stream ({@code tandem.nats.stream},
 * created on {@code tandem.>} when missing); each consumer group is a durable pull consumer
 * filtered to its types' subjects.
 */
final class NatsBroker implements TandemBroker {
  private static final String ALL = SubjectRouter.DEFAULT_PREFIX + ">";
  private final TandemProperties.Nats nats;
  private final String source;

  NatsBroker(TandemProperties.Nats nats, String source) {
    this.nats = nats;
    this.source = source;
  }

  @Override
  public String name() {
    return "nats";
  }

  @Override
  public Transport transport() {
    JetStreamTransport.Builder b = JetStreamTransport.builder().url(nats.getUrl()).source(source);
    if (nats.isCreateStream()) {
      b.ensureStream(nats.getStream(), ALL);
    }
    return b.build();
  }

  @Override
  public MessageSource source(String group, List<String> aggregateTypes) {
    SubjectRouter router = SubjectRouter.byAggregate();
    String[] filters =
        aggregateTypes.stream()
            .map(
                t -> {
                  String subject = router.subjectFor(TandemBroker.probe(t, "x"));
                  return subject.substring(0, subject.length() - 1) + ">";
                })
            .toArray(String[]::new);
    JetStreamMessageSource.Builder b =
        JetStreamMessageSource.builder().url(nats.getUrl()).stream(nats.getStream())
            .durable(group)
            .filterSubjects(filters);
    if (nats.isCreateStream()) {
      b.ensureStream(ALL);
    }
    return b.build();
  }
}
