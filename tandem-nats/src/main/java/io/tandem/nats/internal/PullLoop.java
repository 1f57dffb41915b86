package io.tandem.nats.internal;

import io.nats.client.ConsumerContext;
import io.nats.client.FetchConsumeOptions;
import io.nats.client.FetchConsumer;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.Message;
import io.nats.client.api.ConsumerInfo;
import io.tandem.core.LagProbe;
import io.tandem.core.spi.MessageSink;
import io.tandem.nats.NatsCloudEventsCodec;
import java.io.IOException;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of one {@code JetStreamMessageSource}: one pulls batches from the durable consumer
 * and takes each message off the client as it arrives, one hands them to the sink ({@link
 * HandOver}) in the order the server delivered them. The next pull is asked for only after the sink
 * took every message of the last one, so a full runner stops the pulls. Any failure (connection
 * lost, consumer deleted, server restarting) is logged, and after the reconnect delay the consumer
 * is set up again and pulling resumes.
 */
public final class PullLoop {
  private static final Logger LOG = LoggerFactory.getLogger(PullLoop.class);

  /** How long one pull waits at the server for messages; the next pull follows at once. */
  private static final long PULL_EXPIRES_MILLIS = 5_000;

  private final PullSettings settings;
  private final NatsConnector connector;
  private final NatsCloudEventsCodec codec = NatsCloudEventsCodec.create();
  private final String name;
  private final CountDownLatch closing = new CountDownLatch(1);
  private volatile boolean closed;
  private volatile Thread thread;
  private volatile HeldMessages held;
  private volatile HandOver handOver;
  private volatile LagProbe lag;
  private NatsSession session; // of the consumer context; only the loop's thread after start
  private ConsumerContext consumer;

  public PullLoop(PullSettings settings) {
    this.settings = settings;
    this.name = settings.stream() + "/" + settings.durable();
    this.connector =
        new NatsConnector(
            settings.servers(),
            "tandem-source-" + settings.durable(),
            settings.connectTimeout(),
            settings.connectionOptions(),
            settings.ensureStream());
  }

  /** Checks the connection options without connecting. */
  public void checkOptions() {
    connector.checkOptions();
  }

  /**
   * Connects, creates or updates the durable consumer and starts the threads: {@code
   * tandem-nats-source-<durable>} pulls, {@code ...-sink} hands over, {@code ...-progress} signals
   * the messages held.
   *
   * @throws IOException if no server accepted the connection
   * @throws JetStreamApiException if the server refused the stream or the consumer
   * @throws TimeoutException if connecting took longer than the connect timeout
   */
  public void start(MessageSink sink)
      throws IOException, JetStreamApiException, TimeoutException, InterruptedException {
    try {
      consumer();
    } catch (IOException | JetStreamApiException | TimeoutException | RuntimeException e) {
      connector.close();
      throw e;
    }
    String threadName = "tandem-nats-source-" + settings.durable();
    held = new HeldMessages(settings.ackWait(), threadName + "-progress");
    handOver = new HandOver(held, name);
    handOver.start(sink, threadName + "-sink");
    Thread started = new Thread(this::pullUntilStopped, threadName);
    thread = started;
    started.start();
    lag = LagProbe.start(threadName + "-lag", settings.lagInterval(), this::readLag);
  }

  /**
   * The last lag reading: the durable's messages not delivered yet plus those delivered and not
   * acknowledged; empty before the first reading and after a failed one.
   */
  public OptionalLong lag() {
    LagProbe probe = lag;
    return probe == null ? OptionalLong.empty() : probe.last();
  }

  /** On the probe's thread: one consumer info request on the source's connection. */
  private OptionalLong readLag()
      throws IOException, JetStreamApiException, TimeoutException, InterruptedException {
    NatsSession current =
        connector.acquire(System.nanoTime() + settings.connectTimeout().toNanos());
    JetStreamOptions options =
        JetStreamOptions.builder().requestTimeout(settings.connectTimeout()).build();
    ConsumerInfo info =
        current
            .connection()
            .jetStreamManagement(options)
            .getConsumerInfo(settings.stream(), settings.durable());
    return OptionalLong.of(info.getNumPending() + info.getNumAckPending());
  }

  /** Whether the threads run: started, not closed, and the sink never refused. */
  public boolean running() {
    Thread t = thread;
    HandOver h = handOver;
    return t != null && t.isAlive() && h.alive() && !closed;
  }

  private void pullUntilStopped() {
    boolean failing = false;
    FetchConsumeOptions pull =
        FetchConsumeOptions.builder()
            .maxMessages(settings.pullSize())
            .expiresIn(PULL_EXPIRES_MILLIS)
            .build();
    while (!closed) {
      try {
        if (!handOver.awaitTaken()) {
          return; // the sink refused a message
        }
        FetchConsumer fetch = consumer().fetch(pull);
        try {
          if (failing) {
            LOG.info("NATS source {} pulls again", name);
            failing = false;
          }
          for (Message m = fetch.nextMessage(); m != null; m = fetch.nextMessage()) {
            if (handOver.refused()) {
              return; // what this pull still brings is redelivered after the ack wait
            }
            handOver.put(new FetchedMessage(m, codec, held, name));
          }
        } finally {
          closeQuietly(fetch);
        }
      } catch (InterruptedException e) {
        return; // closed
      } catch (Exception e) {
        if (closed) {
          return;
        }
        consumer = null; // set up again: the consumer may be gone, or the connection new
        if (!failing) {
          LOG.warn("NATS source {} cannot pull, retrying every {}: {}", name, delay(), reason(e));
          failing = true;
        } else {
          LOG.debug("NATS source {} cannot pull: {}", name, reason(e));
        }
        if (!pause()) {
          return;
        }
      }
    }
  }

  private static void closeQuietly(FetchConsumer fetch) {
    try {
      fetch.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.debug("closing a pull failed: {}", e.toString());
    }
  }

  /** The consumer context, after creating or updating the durable on a new connection. */
  private ConsumerContext consumer()
      throws IOException, JetStreamApiException, TimeoutException, InterruptedException {
    NatsSession current =
        connector.acquire(System.nanoTime() + settings.connectTimeout().toNanos());
    if (consumer == null || current != session) {
      JetStreamOptions options =
          JetStreamOptions.builder().requestTimeout(settings.connectTimeout()).build();
      JetStreamManagement jsm = current.connection().jetStreamManagement(options);
      jsm.addOrUpdateConsumer(settings.stream(), settings.consumerConfiguration());
      consumer =
          current.connection().getConsumerContext(settings.stream(), settings.durable(), options);
      session = current;
    }
    return consumer;
  }

  private boolean pause() {
    try {
      return !closing.await(settings.reconnectDelay().toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      return false;
    }
  }

  private String delay() {
    return settings.reconnectDelay().toString().substring(2).toLowerCase(Locale.ROOT);
  }

  /** The server's or client's reason, for messages. */
  public static String reason(Throwable e) {
    if (e instanceof JetStreamApiException api) {
      return api.getErrorDescription() + " (JetStream error " + api.getApiErrorCode() + ")";
    }
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }

  /** Messages received and not acknowledged yet. */
  public int held() {
    HeldMessages h = held;
    return h == null ? 0 : h.size();
  }

  /**
   * Stops pulling and handing over (interrupting both threads; the hand-over may wait in the sink),
   * waits for them at most the close timeout, stops the in-progress signals and closes the
   * connection after flushing the acknowledgements already sent. Idempotent.
   */
  public void close() {
    closed = true;
    closing.countDown();
    LagProbe probe = lag;
    if (probe != null) {
      probe.close();
    }
    long deadline = System.nanoTime() + settings.closeTimeout().toNanos();
    try {
      Thread t = thread;
      if (t != null && t != Thread.currentThread()) {
        t.interrupt();
      }
      HandOver h = handOver;
      if (h != null) {
        h.stop(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
      }
      if (t != null && t != Thread.currentThread()) {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        if (t.isAlive() || (h != null && h.alive())) {
          LOG.warn("NATS source {}: threads did not stop within {}", name, settings.closeTimeout());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (held != null) {
      held.close();
    }
    connector.close(settings.closeTimeout());
  }
}
