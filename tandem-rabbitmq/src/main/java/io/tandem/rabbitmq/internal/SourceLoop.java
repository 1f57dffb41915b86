package io.tandem.rabbitmq.internal;

import io.tandem.core.LagProbe;
import io.tandem.core.spi.MessageSink;
import io.tandem.rabbitmq.RabbitCloudEventsCodec;
import java.io.IOException;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving side of a {@code RabbitMessageSource}: its own thread takes deliveries from the
 * hand-off queue in the order the broker delivered them and hands them to the sink, which may
 * block. The queue needs no bound of its own: the broker never has more than the prefetch of
 * unacknowledged deliveries out to the consumer, handed over or not.
 *
 * <p>When the session ends (connection lost, channel closed by the broker, consumer cancelled) the
 * loop drops it and its deliveries still waiting here, and opens a new session after the reconnect
 * delay, again and again until it succeeds or the source closes. The broker redelivers everything
 * the old session had not acknowledged.
 */
public final class SourceLoop implements Runnable {
  private static final Logger LOG =
      LoggerFactory.getLogger("io.tandem.rabbitmq.RabbitMessageSource");

  private final SourceSettings settings;
  private final MessageSink sink;
  private final ThreadFactory clientThreads;
  private final RabbitCloudEventsCodec codec = RabbitCloudEventsCodec.create();
  private final BlockingQueue<ConsumerSession.Handoff> handoff = new LinkedBlockingQueue<>();
  private final CountDownLatch closing = new CountDownLatch(1);
  private volatile ConsumerSession session;
  private volatile boolean running;
  private volatile Thread thread;
  private volatile LagProbe lag;

  public SourceLoop(SourceSettings settings, MessageSink sink) {
    this.settings = settings;
    this.sink = sink;
    this.clientThreads = AmqpConnections.threads(settings.connectionName());
  }

  /** Declares the source's queue, exchanges and bindings on a short-lived connection. */
  public static void declare(SourceSettings settings) throws IOException {
    ConsumerSession.declareOnly(settings, AmqpConnections.threads(settings.connectionName()));
  }

  /**
   * Opens the first session on the caller's thread, so that a refused subscription fails here, then
   * starts the source thread {@code tandem-rabbitmq-source-<queue>}.
   *
   * @throws IOException with the broker's reason if the first session cannot be opened
   */
  public void start() throws IOException {
    session =
        ConsumerSession.open(settings, clientThreads, codec, handoff, settings.declareQueue());
    running = true;
    Thread receiving = new Thread(this, "tandem-rabbitmq-source-" + settings.queue());
    thread = receiving;
    receiving.start();
    lag =
        LagProbe.start(
            "tandem-rabbitmq-lag-" + settings.queue(), settings.lagInterval(), this::readLag);
  }

  /**
   * The last lag reading: the queue's ready messages plus the deliveries of this source not
   * acknowledged yet; empty before the first reading and while the source has no session.
   */
  public OptionalLong lag() {
    LagProbe probe = lag;
    return probe == null ? OptionalLong.empty() : probe.last();
  }

  /** On the probe's thread: one passive declare; the unacknowledged count is the session's own. */
  private OptionalLong readLag() throws IOException {
    ConsumerSession current = session;
    if (current == null || !current.isOpen()) {
      return OptionalLong.empty(); // reconnecting: what was delivered is being requeued
    }
    return OptionalLong.of(current.readyMessages() + current.unacknowledged());
  }

  /** Whether the source thread is alive: started, not closed, not stopped by the sink. */
  public boolean running() {
    Thread receiving = thread;
    return running && receiving != null && receiving.isAlive() && closing.getCount() > 0;
  }

  @Override
  public void run() {
    try {
      while (closing.getCount() > 0) {
        ConsumerSession current = session;
        if (current == null) {
          current = reconnect();
          if (current == null) {
            return;
          }
        }
        ConsumerSession.Handoff item = handoff.take();
        if (item instanceof ConsumerSession.Ended ended) {
          if (ended.session() == current && closing.getCount() > 0) {
            LOG.warn(
                "queue {}: consumer lost ({}); reconnecting in {}",
                settings.queue(),
                ended.why(),
                settings.reconnectDelay());
            drop(current);
          }
        } else if (item instanceof InboundDelivery message
            && message.session() == current
            && current.isOpen() // else the broker has requeued it for the next session
            && !handOver(message, current)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing: the thread ends here
    } finally {
      running = false;
    }
  }

  /** Returns false when the sink stopped taking messages: the consumer is cancelled. */
  private boolean handOver(InboundDelivery message, ConsumerSession current)
      throws InterruptedException {
    try {
      if (sink.accept(message)) {
        return true;
      }
    } catch (RuntimeException e) {
      LOG.error(
          "queue {}: the sink failed on {}; reconnecting so that the broker redelivers it",
          settings.queue(),
          message.origin(),
          e);
      drop(current);
      return true;
    }
    LOG.info(
        "queue {}: the runner stopped taking messages; cancelling the consumer", settings.queue());
    current.cancel();
    return false;
  }

  /** A new session, or null once the source is closing; retries every reconnect delay. */
  private ConsumerSession reconnect() throws InterruptedException {
    while (!closing.await(settings.reconnectDelay().toNanos(), TimeUnit.NANOSECONDS)) {
      try {
        ConsumerSession fresh =
            ConsumerSession.open(settings, clientThreads, codec, handoff, settings.declareQueue());
        session = fresh;
        if (closing.getCount() == 0) { // close() may have looked for a session before this one
          fresh.abort(1);
          return null;
        }
        LOG.info("queue {}: consuming again", settings.queue());
        return fresh;
      } catch (IOException | RuntimeException e) {
        LOG.warn(
            "queue {}: cannot consume ({}); retrying in {}",
            settings.queue(),
            reason(e),
            settings.reconnectDelay());
      }
    }
    return null;
  }

  private void drop(ConsumerSession current) {
    current.abort(closeMillis());
    handoff.clear(); // the old session's deliveries: requeued by the broker
    session = null;
  }

  /**
   * Stops receiving: interrupts the source thread (it may be blocked in the sink), waits for it at
   * most the close timeout, then closes the connection, which requeues every delivery not
   * acknowledged. Idempotent.
   */
  public void close() {
    closing.countDown();
    LagProbe probe = lag;
    if (probe != null) {
      probe.close();
    }
    Thread receiving = thread;
    if (receiving != null && receiving != Thread.currentThread()) {
      receiving.interrupt();
      try {
        receiving.join(Math.max(1, settings.closeTimeout().toMillis()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (receiving.isAlive()) {
        LOG.warn(
            "queue {}: the source thread did not stop within {}",
            settings.queue(),
            settings.closeTimeout());
      }
    }
    ConsumerSession last = session;
    if (last != null) {
      last.abort(closeMillis());
    }
    running = false;
  }

  private int closeMillis() {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, settings.closeTimeout().toMillis()));
  }

  /** Why a session could not be opened, without the password. */
  public static String reason(Throwable failure) {
    return RabbitErrors.shutdownOf(failure)
        .map(RabbitErrors::replyText)
        .orElseGet(() -> AmqpConnections.redact(String.valueOf(failure)));
  }
}
