package io.tandem.inbox;

import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.MessageSource;
import java.util.List;

/** Hands the given messages to the runner once, in order, on its own thread. */
final class ListSource implements MessageSource {
  private final List<InboundMessage> messages;
  private volatile Thread thread;
  private volatile boolean stopped;

  ListSource(List<? extends InboundMessage> messages) {
    this.messages = List.copyOf(messages);
  }

  @Override
  public String transport() {
    return "list";
  }

  @Override
  public String describe() {
    return "a list of " + messages.size();
  }

  @Override
  public void start(MessageSink sink) {
    thread =
        new Thread(
            () -> {
              try {
                for (InboundMessage m : messages) {
                  if (stopped || !sink.accept(m)) {
                    return;
                  }
                }
                while (!stopped) {
                  Thread.sleep(20); // a broker with nothing more to deliver
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "list-source");
    thread.start();
  }

  @Override
  public boolean isRunning() {
    return thread != null && thread.isAlive();
  }

  @Override
  public void close() {
    stopped = true;
  }
}
