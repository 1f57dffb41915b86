package io.tandem.nats;

import io.nats.client.Connection;
import io.nats.client.FetchConsumeOptions;
import io.nats.client.FetchConsumer;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.OrderedConsumerContext;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.tandem.core.Event;
import io.tandem.testkit.TestEvents;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * The real nats-server (with JetStream) the tests talk to: {@code TANDEM_NATS_URL}, default {@code
 * nats://127.0.0.1:4222}. Each test creates its own uniquely named stream and deletes it.
 */
final class NatsTestSupport {
  static final String TRACEPARENT = TestEvents.TRACEPARENT;
  static final String SOURCE = "/tandem/orders-service";

  private static Connection admin;

  private NatsTestSupport() {}

  static String url() {
    String url = System.getenv("TANDEM_NATS_URL");
    return url == null || url.isBlank() ? "nats://127.0.0.1:4222" : url;
  }

  /** A connection for test set-up and read-back, shared by the JVM's tests. */
  static synchronized Connection admin() {
    if (admin == null) {
      try {
        admin = Nats.connect(new Options.Builder().server(url()).build());
      } catch (IOException e) {
        throw new UncheckedIOException("no nats-server at " + url(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    return admin;
  }

  static JetStreamManagement jsm() {
    try {
      return admin().jetStreamManagement();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A unique, lowercase subject prefix ending with '.', e.g. {@code t3f9a0b1c.}. */
  static String uniquePrefix() {
    return "t" + UUID.randomUUID().toString().substring(0, 8) + ".";
  }

  /** Creates a file-storage stream bound to {@code prefix + ">"} and returns its name. */
  static String createStream(String prefix) {
    return createStream(prefix, StreamConfiguration.builder());
  }

  static String createStream(String prefix, StreamConfiguration.Builder config) {
    String name = "T_" + prefix.substring(0, prefix.length() - 1).toUpperCase(Locale.ROOT);
    try {
      jsm()
          .addStream(
              config.name(name).subjects(prefix + ">").storageType(StorageType.File).build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (JetStreamApiException e) {
      throw new IllegalStateException("cannot create stream " + name, e);
    }
    return name;
  }

  static void deleteStream(String name) {
    try {
      jsm().deleteStream(name);
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() != 10059) {
        throw new IllegalStateException("cannot delete stream " + name, e);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long messageCount(String stream) {
    try {
      return jsm().getStreamInfo(stream).getStreamState().getMsgCount();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (JetStreamApiException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Reads up to {@code count} messages of {@code stream} from the start, in stream order. */
  static List<Message> read(String stream, int count) {
    List<Message> messages = new ArrayList<>();
    try {
      OrderedConsumerContext consumer =
          admin()
              .getStreamContext(stream)
              .createOrderedConsumer(new OrderedConsumerConfiguration());
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (messages.size() < count && System.nanoTime() < deadline) {
        FetchConsumer fetch =
            consumer.fetch(
                FetchConsumeOptions.builder()
                    .maxMessages(count - messages.size())
                    .expiresIn(1000)
                    .build());
        try {
          for (Message m = fetch.nextMessage(); m != null; m = fetch.nextMessage()) {
            messages.add(m);
          }
        } finally {
          fetch.close();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read stream " + stream, e);
    }
    return messages;
  }

  static Event event(String aggregateType, String aggregateId, long version) {
    return TestEvents.event(aggregateType, aggregateId, version);
  }

  /** {@code count} events spread over {@code aggregates} aggregates, versions increasing. */
  static List<Event> events(String aggregateType, int aggregates, int count) {
    return TestEvents.events(aggregateType, aggregates, count);
  }

  static JetStreamTransport transport(SubjectRouter router) {
    return JetStreamTransport.builder().url(url()).source(SOURCE).subjectRouter(router).build();
  }

  /** A loopback port on which nothing listens. */
  static int closedPort() {
    return TestEvents.closedPort();
  }
}
