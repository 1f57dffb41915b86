package io.tandem.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import io.tandem.rabbitmq.RabbitCloudEventsCodec;
import java.io.IOException;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection, one channel and one consumer ({@code basic.consume} with manual acks and {@code
 * basic.qos} prefetch) on the source's queue. After any failure the session is dropped as a whole
 * and a new one opened: delivery tags belong to their channel, so an acknowledgement is only ever
 * sent on the channel that received the message, and one for a dead channel is dropped (the broker
 * has requeued that message already).
 *
 * <p>The client's consumer thread only appends to the source's hand-off queue and never blocks: the
 * prefetch bounds how many deliveries can be in it.
 */
public final class ConsumerSession {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerSession.class);

  private final Connection connection;
  private final Channel channel;
  private final String queue;
  private final AtomicInteger unacknowledged = new AtomicInteger();
  private volatile String consumerTag;
  private Channel probe; // guarded by the probe lock; the lag probe's own channel
  private final Object probeLock = new Object();

  private ConsumerSession(Connection connection, Channel channel, String queue) {
    this.connection = connection;
    this.channel = channel;
    this.queue = queue;
  }

  /** What the client's consumer thread hands to the source's thread, in delivery order. */
  public sealed interface Handoff permits InboundDelivery, Ended {}

  /** The session's channel closed or the broker cancelled its consumer: open a new session. */
  public record Ended(ConsumerSession session, String why) implements Handoff {}

  /**
   * Connects, opens the channel, sets the prefetch, declares the topology when {@code declare}, and
   * starts consuming into {@code handoff}.
   *
   * @throws IOException with the broker's reason when any step fails (everything opened is closed)
   */
  static ConsumerSession open(
      SourceSettings settings,
      ThreadFactory threads,
      RabbitCloudEventsCodec codec,
      BlockingQueue<Handoff> handoff,
      boolean declare)
      throws IOException {
    Connection connection = connect(settings, threads);
    try {
      Channel channel = connection.createChannel();
      if (channel == null) {
        throw new IOException("no free channel number on the connection");
      }
      ConsumerSession session = new ConsumerSession(connection, channel, settings.queue());
      if (declare) {
        declare(channel, settings);
      }
      channel.basicQos(settings.prefetch(), false); // per consumer
      session.consumerTag =
          channel.basicConsume(settings.queue(), false, session.new Receiver(codec, handoff));
      return session;
    } catch (IOException | RuntimeException e) {
      connection.abort(closeMillis(settings));
      throw e;
    }
  }

  /** Declares the queue, its exchanges and bindings on a connection of its own, then closes it. */
  static void declareOnly(SourceSettings settings, ThreadFactory threads) throws IOException {
    Connection connection = connect(settings, threads);
    try {
      declare(connection.createChannel(), settings);
    } finally {
      connection.abort(closeMillis(settings));
    }
  }

  private static Connection connect(SourceSettings settings, ThreadFactory threads)
      throws IOException {
    int millis = (int) settings.connectTimeout().toMillis();
    try {
      return AmqpConnections.factory(settings.uri(), threads, millis, millis)
          .newConnection(settings.connectionName());
    } catch (TimeoutException e) {
      throw new IOException("the AMQP handshake did not complete within " + millis + " ms", e);
    } catch (URISyntaxException | GeneralSecurityException e) {
      throw new IOException("cannot configure the connection: " + e, e);
    }
  }

  private static void declare(Channel channel, SourceSettings settings) throws IOException {
    Set<String> exchanges = new LinkedHashSet<>();
    settings.bindings().forEach(b -> exchanges.add(b.exchange()));
    for (String exchange : exchanges) {
      channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true); // as RabbitTransport
    }
    Map<String, Object> arguments = new HashMap<>(settings.queueArguments());
    if (settings.singleActiveConsumer()) {
      arguments.put(SourceSettings.SINGLE_ACTIVE_CONSUMER, true);
    }
    channel.queueDeclare(settings.queue(), true, false, false, arguments);
    for (SourceSettings.Binding binding : settings.bindings()) {
      channel.queueBind(settings.queue(), binding.exchange(), binding.bindingKey());
    }
  }

  boolean isOpen() {
    return channel.isOpen();
  }

  /** Deliveries this session received and has not acknowledged yet, handed over or not. */
  int unacknowledged() {
    return unacknowledged.get();
  }

  /**
   * The queue's ready messages (not delivered to any consumer yet) from a passive {@code
   * queue.declare}, on a channel of this connection that only the lag probe uses: the passive
   * declare of a deleted queue closes that channel, never the consumer's.
   *
   * @throws IOException if the broker refuses or the connection is gone
   */
  long readyMessages() throws IOException {
    synchronized (probeLock) {
      if (probe == null || !probe.isOpen()) {
        probe = connection.createChannel();
        if (probe == null) {
          throw new IOException("no free channel number on the connection for the lag probe");
        }
      }
      return probe.messageCount(queue);
    }
  }

  /**
   * Acknowledges one delivery of this session, from any thread. A channel that is gone is not an
   * error: the broker requeued the message when it closed.
   */
  void acknowledge(long deliveryTag) {
    synchronized (this) { // one ack frame at a time, whichever worker sends it
      if (!channel.isOpen()) {
        LOG.debug(
            "queue {}: ack of delivery {} dropped: the channel is closed", queue, deliveryTag);
        return;
      }
      try {
        channel.basicAck(deliveryTag, false);
        unacknowledged.decrementAndGet();
      } catch (IOException | RuntimeException e) {
        LOG.debug("queue {}: ack of delivery {} not sent ({})", queue, deliveryTag, e.toString());
      }
    }
  }

  /** Stops the broker delivering to this session; what was delivered stays unacknowledged. */
  void cancel() {
    String tag = consumerTag;
    if (tag == null || !channel.isOpen()) {
      return;
    }
    try {
      channel.basicCancel(tag);
    } catch (IOException | RuntimeException e) {
      LOG.debug("queue {}: basic.cancel failed ({})", queue, e.toString());
    }
  }

  /**
   * Closes the connection, waiting at most {@code millis} for the broker; it requeues every
   * delivery not acknowledged. Never throws.
   */
  void abort(int millis) {
    connection.abort(Math.max(1, millis));
  }

  private static int closeMillis(SourceSettings settings) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, settings.closeTimeout().toMillis()));
  }

  /** Runs on the client's consumer thread: appends, never blocks. */
  private final class Receiver implements Consumer {
    private final RabbitCloudEventsCodec codec;
    private final BlockingQueue<Handoff> handoff;

    Receiver(RabbitCloudEventsCodec codec, BlockingQueue<Handoff> handoff) {
      this.codec = codec;
      this.handoff = handoff;
    }

    @Override
    public void handleDelivery(
        String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
      unacknowledged.incrementAndGet();
      handoff.add(
          new InboundDelivery(ConsumerSession.this, queue, envelope, properties, body, codec));
    }

    @Override
    public void handleShutdownSignal(String tag, ShutdownSignalException sse) {
      handoff.add(new Ended(ConsumerSession.this, RabbitErrors.replyText(sse)));
    }

    @Override
    public void handleCancel(String tag) {
      handoff.add(
          new Ended(
              ConsumerSession.this,
              "the broker cancelled the consumer (was queue '" + queue + "' deleted?)"));
    }

    @Override
    public void handleConsumeOk(String tag) {}

    @Override
    public void handleCancelOk(String tag) {}

    @Override
    public void handleRecoverOk(String tag) {}
  }
}
