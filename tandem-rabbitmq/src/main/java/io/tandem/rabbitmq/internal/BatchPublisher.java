package io.tandem.rabbitmq.internal;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.rabbitmq.ExchangeRouter;
import io.tandem.rabbitmq.RabbitCloudEventsCodec;
import io.tandem.rabbitmq.RabbitMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Publishes one batch on one leased channel: every message is published (mandatory, persistent)
 * first, then the batch waits once for all confirms. An event is acknowledged only when the broker
 * confirmed that exact message and did not return it.
 *
 * <p>Before publishing, each exchange the batch uses is checked once per connection (a passive
 * declare, or a declare when the transport declares exchanges): publishing to a missing exchange
 * would make the broker close the channel and take the batch's other messages with it.
 */
public final class BatchPublisher {
  private final ChannelPool pool;
  private final ExchangeRouter router;
  private final RabbitCloudEventsCodec codec;
  private final boolean declareExchanges;

  public BatchPublisher(
      ChannelPool pool,
      ExchangeRouter router,
      RabbitCloudEventsCodec codec,
      boolean declareExchanges) {
    this.pool = pool;
    this.router = router;
    this.codec = codec;
    this.declareExchanges = declareExchanges;
  }

  public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    PendingConfirms pending = new PendingConfirms(events);
    RabbitMessage[] messages = encode(events, pending);
    ChannelPool.Lease lease = null;
    boolean interrupted = false;
    if (pending.allCompleted()) {
      return pending.outcomes(timeout, false); // nothing could be encoded: no channel needed
    }
    try {
      lease = acquire(pending, deadline);
      if (lease != null) {
        lease = checkExchanges(pending, lease, deadline);
      }
      if (lease != null) {
        interrupted = publishAll(pending, messages, lease, deadline);
      }
      interrupted |= Thread.currentThread().isInterrupted();
      if (!interrupted) {
        pending.await(deadline);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      interrupted = true;
    } finally {
      if (lease != null) {
        pool.release(lease);
      }
    }
    List<PublishOutcome> outcomes = pending.outcomes(timeout, interrupted);
    if (lease != null) {
      forgetRefusedExchanges(pending, outcomes, lease);
    }
    return outcomes;
  }

  /** A leased channel, or null after failing every open event with the reason there is none. */
  private ChannelPool.Lease acquire(PendingConfirms pending, long deadline) {
    try {
      return pool.acquire(deadline);
    } catch (ChannelPool.Unavailable e) {
      failRest(pending, 0, e.errorClass(), e.getMessage(), e.getCause());
      return null;
    }
  }

  private RabbitMessage[] encode(List<Event> events, PendingConfirms pending) {
    RabbitMessage[] messages = new RabbitMessage[events.size()];
    for (int i = 0; i < events.size(); i++) {
      Event event = events.get(i);
      String exchange;
      try {
        exchange = ExchangeNames.validate("exchange", router.exchangeFor(event));
      } catch (RuntimeException e) {
        pending.fail(i, ErrorClass.UNROUTABLE, "no exchange: " + e.getMessage(), e);
        continue;
      }
      try {
        messages[i] = codec.encode(exchange, event);
      } catch (RuntimeException e) {
        pending.route(i, exchange, 0);
        pending.fail(i, ErrorClass.SERIALIZATION, e.getMessage(), e);
        continue;
      }
      pending.route(i, exchange, messages[i].bodySize());
    }
    return messages;
  }

  /**
   * Checks every exchange of the batch not yet known on this connection. A refused check fails that
   * exchange's events and costs the channel (the broker closes it), so the batch continues on a new
   * one. Returns the lease to publish on, or null if no channel is left.
   */
  private ChannelPool.Lease checkExchanges(
      PendingConfirms pending, ChannelPool.Lease lease, long deadline) {
    Set<String> checked = new HashSet<>();
    for (int i = 0; i < pending.size(); i++) {
      String exchange = pending.exchange(i);
      if (pending.completed(i) || lease.verified(exchange) || !checked.add(exchange)) {
        continue;
      }
      if (System.nanoTime() - deadline >= 0 || Thread.currentThread().isInterrupted()) {
        return lease; // unchecked exchanges' events are not published: TIMEOUT
      }
      Channel channel = lease.channel().channel();
      try {
        if (declareExchanges) {
          channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true);
        } else {
          channel.exchangeDeclarePassive(exchange);
        }
        lease.markVerified(exchange);
      } catch (IOException | RuntimeException e) {
        for (int j = i; j < pending.size(); j++) {
          if (!pending.completed(j) && exchange.equals(pending.exchange(j))) {
            pending.failUnsent(j, e);
          }
        }
        lease.channel().markBroken();
        pool.release(lease);
        lease = acquire(pending, deadline);
        if (lease == null) {
          return null;
        }
      }
    }
    return lease;
  }

  /** Publishes every event still open; returns whether the thread was interrupted. */
  private boolean publishAll(
      PendingConfirms pending, RabbitMessage[] messages, ChannelPool.Lease lease, long deadline) {
    PublisherChannel publisher = lease.channel();
    Channel channel = publisher.channel();
    publisher.attach(pending);
    for (int i = 0; i < pending.size(); i++) {
      if (pending.completed(i) || !lease.verified(pending.exchange(i))) {
        continue;
      }
      if (Thread.currentThread().isInterrupted()) {
        return true;
      }
      if (System.nanoTime() - deadline >= 0) {
        return false; // the rest stays open and is reported as TIMEOUT
      }
      Optional<String> blocked = lease.blocked();
      if (blocked.isPresent()) {
        failRest(
            pending,
            i,
            ErrorClass.BROKER_UNAVAILABLE,
            "RabbitMQ blocks publishing (resource alarm: " + blocked.get() + ")",
            null);
        return false;
      }
      RabbitMessage message = messages[i];
      long tag = channel.getNextPublishSeqNo();
      pending.published(tag, i);
      try {
        channel.basicPublish(
            message.exchange(), message.routingKey(), true, message.properties(), message.body());
      } catch (IOException | RuntimeException e) {
        // The client may have counted a delivery tag the broker never saw: never reuse the channel.
        pending.unpublished(tag);
        publisher.markBroken();
        if (channel.isOpen() && RabbitErrors.shutdownOf(e).isEmpty() && e instanceof IOException) {
          lease.abortConnection(); // a frame may be half written: the connection is unusable
        }
        for (int j = i; j < pending.size(); j++) {
          if (!pending.completed(j)) {
            pending.failUnsent(j, e);
          }
        }
        return false;
      }
    }
    return false;
  }

  private static void failRest(
      PendingConfirms pending, int from, ErrorClass errorClass, String why, Throwable cause) {
    for (int i = from; i < pending.size(); i++) {
      if (!pending.completed(i)) {
        pending.fail(i, errorClass, why, cause);
      }
    }
  }

  /** An exchange that refused an event is checked again before the next publish to it. */
  private static void forgetRefusedExchanges(
      PendingConfirms pending, List<PublishOutcome> outcomes, ChannelPool.Lease lease) {
    for (int i = 0; i < outcomes.size(); i++) {
      PublishOutcome outcome = outcomes.get(i);
      if (!outcome.acknowledged() && pending.exchange(i) != null) {
        ErrorClass errorClass = outcome.failure().errorClass();
        if (errorClass == ErrorClass.UNROUTABLE || errorClass == ErrorClass.AUTHORIZATION) {
          lease.forget(pending.exchange(i));
        }
      }
    }
  }
}
