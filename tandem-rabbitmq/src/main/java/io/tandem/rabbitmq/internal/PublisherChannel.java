package io.tandem.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;

/**
 * One channel in confirm mode, used by one publish at a time, and the listeners that forward the
 * broker's confirms, returns and close to the batch being published on it.
 *
 * <p>A channel is handed to the next publish only once its last batch is settled (every message
 * published on it was confirmed or nacked). Otherwise a late return of an abandoned batch, which is
 * matched by message id, could be charged to a retry of the same event.
 */
public final class PublisherChannel implements ConfirmListener, ReturnListener, ShutdownListener {
  private final Channel channel;
  private volatile PendingConfirms batch;
  private volatile boolean inUse; // set by the pool (under its lock) and by release
  private volatile boolean broken;

  private PublisherChannel(Channel channel) {
    this.channel = channel;
  }

  /**
   * Opens a channel on {@code connection} and puts it in confirm mode.
   *
   * @throws IOException if the broker refuses, or no channel number is free
   */
  static PublisherChannel open(Connection connection) throws IOException {
    Channel channel = connection.createChannel();
    if (channel == null) {
      throw new IOException(
          "no free channel number on the connection (channel_max "
              + connection.getChannelMax()
              + ")");
    }
    PublisherChannel publisher = new PublisherChannel(channel);
    channel.confirmSelect(); // on failure the caller replaces the whole connection
    channel.addConfirmListener(publisher);
    channel.addReturnListener(publisher);
    channel.addShutdownListener(publisher);
    return publisher;
  }

  public Channel channel() {
    return channel;
  }

  void attach(PendingConfirms batch) {
    this.batch = batch;
  }

  boolean inUse() {
    return inUse;
  }

  void inUse(boolean inUse) {
    this.inUse = inUse;
  }

  /** Open, usable, and nothing published on it still awaits the broker's answer. */
  boolean reusable() {
    return !broken && channel.isOpen() && settled();
  }

  /**
   * Marks the channel unusable: a publish on it failed midway, so the client's delivery tags may no
   * longer match the broker's. It stays open (closing waits for the broker) until its connection is
   * replaced or closed.
   */
  void markBroken() {
    broken = true;
  }

  boolean broken() {
    return broken;
  }

  boolean settled() {
    PendingConfirms current = batch;
    return current == null || current.settled();
  }

  @Override
  public void handleAck(long deliveryTag, boolean multiple) {
    PendingConfirms current = batch;
    if (current != null) {
      current.acknowledge(deliveryTag, multiple);
    }
  }

  @Override
  public void handleNack(long deliveryTag, boolean multiple) {
    PendingConfirms current = batch;
    if (current != null) {
      current.reject(deliveryTag, multiple);
    }
  }

  @Override
  public void handleReturn(
      int replyCode,
      String replyText,
      String exchange,
      String routingKey,
      AMQP.BasicProperties properties,
      byte[] body) {
    PendingConfirms current = batch;
    if (current != null) {
      current.returned(replyCode, replyText, properties.getMessageId());
    }
  }

  @Override
  public void shutdownCompleted(ShutdownSignalException cause) {
    PendingConfirms current = batch;
    if (current != null) {
      current.channelClosed(cause);
    }
  }
}
