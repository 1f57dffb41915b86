package io.tandem.kafka.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the transport's current producer and replaces it once it has entered a fatal state. A
 * publish leases the current producer for its whole batch; a retired lease tells the publish that
 * its failures came from the replacement, not from the event.
 */
public final class ProducerSlot {
  private static final Logger LOG = LoggerFactory.getLogger(ProducerSlot.class);

  private final Supplier<Producer<String, byte[]>> factory;
  private Lease current; // guarded by this
  private boolean closed; // guarded by this

  public ProducerSlot(Supplier<Producer<String, byte[]>> factory) {
    this.factory = factory;
  }

  /**
   * The current producer, created if there is none.
   *
   * @throws IllegalStateException if the slot is closed
   * @throws org.apache.kafka.common.KafkaException if a new producer cannot be created
   */
  public synchronized Lease acquire() {
    if (closed) {
      throw new IllegalStateException("KafkaTransport is closed");
    }
    if (current == null) {
      current = new Lease(factory.get());
    }
    return current;
  }

  /** Abandons {@code lease}'s producer: its in-flight sends fail; the next acquire creates one. */
  public void retire(Lease lease, Throwable why) {
    synchronized (this) {
      if (current == lease) {
        current = null;
      }
    }
    if (lease.retire()) {
      LOG.warn("Kafka producer is in a fatal state and is replaced: {}", why.toString());
      lease.producer.close(Duration.ZERO);
    }
  }

  /** Closes the current producer, waiting at most {@code timeout} for in-flight sends. */
  public void close(Duration timeout) {
    Lease last;
    synchronized (this) {
      closed = true;
      last = current;
      current = null;
    }
    if (last != null && last.retire()) {
      last.producer.close(timeout);
    }
  }

  /** One producer, as used by one publish. */
  public static final class Lease {
    private final Producer<String, byte[]> producer;
    private final AtomicBoolean retired = new AtomicBoolean();

    Lease(Producer<String, byte[]> producer) {
      this.producer = producer;
    }

    public Producer<String, byte[]> producer() {
      return producer;
    }

    /** Whether this producer was replaced or closed; its failures say nothing about the events. */
    public boolean retired() {
      return retired.get();
    }

    private boolean retire() {
      return retired.compareAndSet(false, true);
    }
  }
}
