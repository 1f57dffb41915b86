package io.tandem.redis;

import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSink;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * A sink for tests: records every message it takes and passes it on (to acknowledge it at once,
 * later, or never), and can be held closed (it then blocks in {@link #accept} as a full runner
 * does) or told to refuse.
 */
final class RecordingSink implements MessageSink {
  final List<InboundMessage> received = new CopyOnWriteArrayList<>();
  private final Consumer<InboundMessage> then;
  private volatile CountDownLatch gate = new CountDownLatch(0);
  private volatile int refuseAfter = Integer.MAX_VALUE;
  private volatile boolean blocked;
  private volatile long firstTakenAt;

  private RecordingSink(Consumer<InboundMessage> then) {
    this.then = then;
  }

  /** Takes and acknowledges every message. */
  static RecordingSink acknowledging() {
    return new RecordingSink(InboundMessage::acknowledge);
  }

  /** Takes every message and leaves it unacknowledged. */
  static RecordingSink holding() {
    return new RecordingSink(m -> {});
  }

  /** Takes every message and passes it to {@code then} on the source's thread. */
  static RecordingSink then(Consumer<InboundMessage> then) {
    return new RecordingSink(then);
  }

  /** From now on, blocks in accept until {@link #open()}. */
  RecordingSink close() {
    gate = new CountDownLatch(1);
    return this;
  }

  void open() {
    gate.countDown();
  }

  /** Refuses (returns false) once it holds {@code count} messages. */
  RecordingSink refuseAfter(int count) {
    refuseAfter = count;
    return this;
  }

  /** Whether a call of accept is waiting for {@link #open()}. */
  boolean blocked() {
    return blocked;
  }

  @Override
  public boolean accept(InboundMessage message) throws InterruptedException {
    blocked = true;
    try {
      gate.await();
    } finally {
      blocked = false;
    }
    if (received.size() >= refuseAfter) {
      return false;
    }
    if (received.isEmpty()) {
      firstTakenAt = System.nanoTime();
    }
    received.add(message);
    then.accept(message);
    return true;
  }

  /** The {@link System#nanoTime()} when the first message was taken. */
  long firstTakenAt() {
    return firstTakenAt;
  }

  /** The event ids of the messages taken, in order. */
  List<String> eventIds() {
    return received.stream().map(m -> m.decode().eventId().toString()).toList();
  }
}
