package io.tandem.bench;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;

/**
 * A consumer group as the broker sees it: which member (by {@code client.id}) holds how many
 * partitions. For the consumer scale-out benchmark, which reports how its group shared the topic.
 */
final class ConsumerGroupView implements AutoCloseable {
  private final Admin admin;
  private final String group;

  ConsumerGroupView(String bootstrap, Map<String, String> kafkaClient, String group) {
    Map<String, Object> config = new HashMap<>(kafkaClient);
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    this.admin = Admin.create(config);
    this.group = group;
  }

  /**
   * Waits until the group is stable with every one of {@code members} holding partitions and all
   * {@code partitions} assigned; returns the partitions per member, in the order of {@code members}
   * ("2/2/2/2").
   *
   * @throws IllegalStateException if that does not happen within {@code timeout}
   */
  String awaitShared(List<String> members, int partitions, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "nothing";
    while (System.nanoTime() < deadline) {
      Map<String, Integer> held = new HashMap<>();
      ConsumerGroupDescription d;
      try {
        d = admin.describeConsumerGroups(List.of(group)).all().get(5, TimeUnit.SECONDS).get(group);
      } catch (ExecutionException | TimeoutException e) {
        last = e.toString();
        TimeUnit.MILLISECONDS.sleep(200);
        continue;
      }
      for (MemberDescription m : d.members()) {
        held.merge(m.clientId(), m.assignment().topicPartitions().size(), Integer::sum);
      }
      last = d.groupState() + " " + held;
      int assigned = held.values().stream().mapToInt(Integer::intValue).sum();
      boolean everyone = members.stream().allMatch(m -> held.getOrDefault(m, 0) > 0);
      if (d.groupState() == GroupState.STABLE && assigned == partitions && everyone) {
        StringBuilder sb = new StringBuilder();
        for (String m : members) {
          sb.append(sb.length() == 0 ? "" : "/").append(held.get(m));
        }
        return sb.toString();
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
    throw new IllegalStateException(
        "consumer group " + group + " did not share the topic within " + timeout + ": " + last);
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
  }
}
