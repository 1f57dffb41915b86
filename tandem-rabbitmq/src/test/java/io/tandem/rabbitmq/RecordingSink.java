package io.tandem.rabbitmq;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSink;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;

/**
 * A sink for tests: records what it is handed and on which thread, acknowledges at once when told
 * to, takes a permit per message when gated (blocking like a full runner), and refuses from a given
 * message on (as a stopping runner).
 */
final class RecordingSink implements MessageSink {
  final List<InboundMessage> messages = new CopyOnWriteArrayList<>();
  final Set<String> threads = ConcurrentHashMap.newKeySet();
  private final boolean acknowledge;
  private volatile Semaphore gate;
  private volatile int refuseFrom = Integer.MAX_VALUE;
  private volatile int attempts;
  private volatile int failures;

  RecordingSink(boolean acknowledge) {
    this.acknowledge = acknowledge;
  }

  /** Each later message waits for a permit from {@code gate}. */
  RecordingSink gatedBy(Semaphore gate) {
    this.gate = gate;
    return this;
  }

  /** The {@code n}-th message handed over (0-based) and every later one is refused. */
  RecordingSink refusingFrom(int n) {
    this.refuseFrom = n;
    return this;
  }

  /** The next {@code n} messages make the sink throw, as a runner with a bug would. */
  RecordingSink failing(int n) {
    this.failures = n;
    return this;
  }

  @Override
  public boolean accept(InboundMessage message) throws InterruptedException {
    threads.add(Thread.currentThread().getName());
    if (attempts++ >= refuseFrom) {
      return false;
    }
    if (failures > 0) {
      failures--;
      throw new IllegalStateException("sink failure for the test");
    }
    Semaphore permits = gate;
    if (permits != null) {
      permits.acquire();
    }
    if (acknowledge) {
      message.acknowledge(); // first, so that a test seeing the message sees it acknowledged
    }
    messages.add(message);
    return true;
  }

  int size() {
    return messages.size();
  }

  List<Event> events() {
    return messages.stream().map(InboundMessage::decode).toList();
  }

  List<UUID> ids() {
    return events().stream().map(Event::eventId).toList();
  }

  /** Acknowledges every message recorded so far. */
  void acknowledgeAll() {
    messages.forEach(InboundMessage::acknowledge);
  }
}
