package io.tandem.rabbitmq;

import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.tandem.core.Event;
import io.tandem.testkit.TestEvents;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Real-broker helpers shared by the module's tests. The broker is the one named by system property
 * {@code tandem.rabbitmq.uri} or environment variable {@code TANDEM_RABBITMQ_URI}, else {@value
 * #DEFAULT_URI}.
 */
final class RabbitTestSupport {
  static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672/";
  static final String TRACEPARENT = TestEvents.TRACEPARENT;
  static final String SOURCE = "/tandem/orders-service";

  private static Connection admin;

  private RabbitTestSupport() {}

  static String uri() {
    String value = System.getProperty("tandem.rabbitmq.uri");
    if (value == null || value.isBlank()) {
      value = System.getenv("TANDEM_RABBITMQ_URI");
    }
    return value == null || value.isBlank() ? DEFAULT_URI : value.strip();
  }

  static String unique(String prefix) {
    return "tandem-test." + prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  static RabbitTransport transport(ExchangeRouter router) {
    return RabbitTransport.builder()
        .uri(uri())
        .source(SOURCE)
        .exchangeRouter(router)
        .connectionName("tandem-rabbitmq-tests")
        .build();
  }

  /** A connection of the tests' own, for topology and reading back; opened once. */
  static synchronized Connection admin() {
    if (admin == null || !admin.isOpen()) {
      ConnectionFactory factory = new ConnectionFactory();
      try {
        factory.setUri(uri());
        if (factory.getVirtualHost().isEmpty()) {
          factory.setVirtualHost("/"); // as RabbitTransport reads amqp://host:5672/
        }
        factory.setConnectionTimeout(5_000);
        admin = factory.newConnection("tandem-rabbitmq-tests-admin");
      } catch (Exception e) {
        throw new IllegalStateException(
            "RabbitMQ is not reachable at "
                + uri()
                + ": start one, or name another with -Dtandem.rabbitmq.uri or TANDEM_RABBITMQ_URI",
            e);
      }
    }
    return admin;
  }

  /** {@link #uri()} with its host and port replaced by a local proxy's. */
  static String uriThrough(int port) {
    java.net.URI broker = java.net.URI.create(uri());
    try {
      return new java.net.URI(
              broker.getScheme(),
              broker.getUserInfo(),
              "127.0.0.1",
              port,
              broker.getPath(),
              broker.getQuery(),
              null)
          .toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static Event event(String aggregateType, String aggregateId, long version) {
    return TestEvents.event(aggregateType, aggregateId, version);
  }

  /** {@code count} events spread over {@code aggregates} aggregates, versions increasing. */
  static List<Event> events(String aggregateType, String idPrefix, int aggregates, int count) {
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(event(aggregateType, idPrefix + (i % aggregates), i / aggregates + 1));
    }
    return events;
  }

  /** A local port nothing listens on. */
  static int closedPort() {
    return TestEvents.closedPort();
  }

  /**
   * Exchanges and queues created by one test, deleted by {@link #close()}. Queues are classic,
   * non-durable (test data), bound with a binding key.
   */
  static final class Topology implements AutoCloseable {
    private final List<String> exchanges = new ArrayList<>();
    private final List<String> queues = new ArrayList<>();

    /** A new durable topic exchange (as the transport declares them). */
    String exchange(String prefix) {
      String name = unique(prefix);
      run(c -> c.exchangeDeclare(name, BuiltinExchangeType.TOPIC, true));
      exchanges.add(name);
      return name;
    }

    /** A name for an exchange the test expects someone else to create; deleted afterwards. */
    String exchangeName(String prefix) {
      String name = unique(prefix);
      exchanges.add(name);
      return name;
    }

    /** A name for a queue the test expects a source to declare; deleted afterwards. */
    String queueName(String prefix) {
      String name = unique(prefix);
      queues.add(name);
      return name;
    }

    /** A new queue bound to {@code exchange} with {@code bindingKey}. */
    String queue(String exchange, String bindingKey) {
      String name = unique("queue");
      run(
          c -> {
            c.queueDeclare(name, false, false, false, null);
            c.queueBind(name, exchange, bindingKey);
          });
      queues.add(name);
      return name;
    }

    /**
     * The message ids of everything in {@code queue} (consumed), once at least {@code atLeast} have
     * arrived and the queue is empty.
     */
    Set<UUID> messageIds(String queue, int atLeast) {
      Set<UUID> ids = ConcurrentHashMap.newKeySet();
      try (Channel consumer = admin().createChannel()) {
        consumer.basicConsume(
            queue,
            true,
            (consumerTag, delivery) ->
                ids.add(UUID.fromString(delivery.getProperties().getMessageId())),
            consumerTag -> {});
        await()
            .atMost(Duration.ofSeconds(15))
            .until(() -> ids.size() >= atLeast && messageCount(queue) == 0);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException(e);
      }
      return Set.copyOf(ids);
    }

    long messageCount(String queue) {
      long[] count = new long[1];
      run(c -> count[0] = c.queueDeclarePassive(queue).getMessageCount());
      return count[0];
    }

    /** Fetches (and acknowledges) exactly {@code count} messages, waiting for them to arrive. */
    List<GetResponse> read(String queue, int count) {
      List<GetResponse> messages = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () -> {
                run(
                    c -> {
                      GetResponse response;
                      while (messages.size() < count
                          && (response = c.basicGet(queue, true)) != null) {
                        messages.add(response);
                      }
                    });
                return messages.size() >= count;
              });
      return messages;
    }

    @Override
    public void close() {
      for (String queue : queues) {
        quietly(c -> c.queueDelete(queue));
      }
      for (String exchange : exchanges) {
        quietly(c -> c.exchangeDelete(exchange));
      }
    }

    /** Deletes {@code exchange} now, as an operator would. */
    void deleteExchange(String exchange) {
      run(c -> c.exchangeDelete(exchange));
    }

    private static void quietly(ChannelWork work) {
      try {
        run(work);
      } catch (RuntimeException e) {
        // already gone: nothing to clean up
      }
    }

    private static void run(ChannelWork work) {
      try (Channel channel = admin().createChannel()) {
        work.run(channel);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @FunctionalInterface
  interface ChannelWork {
    void run(Channel channel) throws IOException;
  }
}
