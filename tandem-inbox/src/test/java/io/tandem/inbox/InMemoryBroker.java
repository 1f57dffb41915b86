package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.MessageSource;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A broker in the test's memory for the runner's own tests: one log per aggregate type; each group
 * reads it with competing sources; a message handed out and not acknowledged goes back to the group
 * when its source closes (redelivery), as a broker does for a consumer that left.
 */
final class InMemoryBroker {
  private record Entry(String key, byte[] body, Event event) {}

  private final Map<String, List<Entry>> logs = new HashMap<>();
  private final Map<String, Group> groups = new HashMap<>();

  private final class Group {
    final String type;
    int next;
    final List<Integer> returned = new ArrayList<>();
    final Set<Integer> acked = new HashSet<>();

    Group(String type) {
      this.type = type;
    }
  }

  synchronized void publish(Event event) {
    logs.computeIfAbsent(event.aggregateType(), t -> new ArrayList<>())
        .add(new Entry(event.aggregateId(), new byte[0], event));
    notifyAll();
  }

  synchronized void publishInvalid(String type, String key) {
    logs.computeIfAbsent(type, t -> new ArrayList<>())
        .add(new Entry(key, "not a cloud event".getBytes(StandardCharsets.UTF_8), null));
    notifyAll();
  }

  synchronized long acknowledged(String group) {
    Group g = groups.get(group);
    return g == null ? 0 : g.acked.size();
  }

  MessageSource source(String group, String type) {
    return new Source(group, type);
  }

  private synchronized Integer take(Group g, Set<Integer> mine) throws InterruptedException {
    while (true) {
      Integer index = null;
      if (!g.returned.isEmpty()) {
        index = g.returned.remove(0);
      } else if (g.next < logs.getOrDefault(g.type, List.of()).size()) {
        index = g.next++;
      }
      if (index != null) {
        mine.add(index);
        return index;
      }
      wait(50);
      return null;
    }
  }

  private final class Source implements MessageSource {
    private final Group group;
    private final String name;
    private final Set<Integer> unacked = new HashSet<>();
    private volatile boolean stopped;
    private Thread thread;

    Source(String groupName, String type) {
      synchronized (InMemoryBroker.this) {
        this.group = groups.computeIfAbsent(groupName, n -> new Group(type));
      }
      this.name = groupName;
    }

    @Override
    public String transport() {
      return "memory";
    }

    @Override
    public String describe() {
      return "in-memory group " + name;
    }

    @Override
    public void start(MessageSink sink) {
      thread =
          new Thread(
              () -> {
                try {
                  while (!stopped) {
                    Integer index = take(group, unacked);
                    if (index == null) {
                      continue;
                    }
                    Entry entry;
                    synchronized (InMemoryBroker.this) {
                      entry = logs.get(group.type).get(index);
                    }
                    if (!sink.accept(message(index, entry))) {
                      return;
                    }
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "memory-source-" + name);
      thread.start();
    }

    private InboundMessage message(int index, Entry entry) {
      return new InboundMessage() {
        @Override
        public String key() {
          return entry.key();
        }

        @Override
        public String origin() {
          return "memory " + group.type + "@" + index;
        }

        @Override
        public Map<String, String> rawHeaders() {
          return Map.of("index", Integer.toString(index));
        }

        @Override
        public byte[] rawBody() {
          return entry.body();
        }

        @Override
        public Event decode() {
          if (entry.event() == null) {
            throw new IllegalArgumentException("the body is not a CloudEvent");
          }
          return entry.event();
        }

        @Override
        public void acknowledge() {
          synchronized (InMemoryBroker.this) {
            if (unacked.remove(index)) {
              group.acked.add(index);
            }
          }
        }
      };
    }

    /** Not handed out yet, handed back, and handed to this source but not acknowledged. */
    @Override
    public java.util.OptionalLong lag() {
      synchronized (InMemoryBroker.this) {
        long waiting = logs.getOrDefault(group.type, List.of()).size() - group.next;
        return java.util.OptionalLong.of(waiting + group.returned.size() + unacked.size());
      }
    }

    @Override
    public boolean isRunning() {
      return thread != null && thread.isAlive();
    }

    @Override
    public void close() {
      stopped = true;
      if (thread != null) {
        try {
          thread.join(5000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      synchronized (InMemoryBroker.this) {
        group.returned.addAll(unacked); // redelivered to the group's other sources
        unacked.clear();
        InMemoryBroker.this.notifyAll();
      }
    }
  }
}
