package io.tandem.redis.internal;

import java.util.List;
import java.util.OptionalLong;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.resps.StreamGroupInfo;

/**
 * A consumer group's entries not processed yet, from {@code XINFO GROUPS} on each of its streams:
 * {@code lag} (entries not delivered to the group yet; Redis 7.0 and later) plus {@code pending}
 * (delivered to a consumer of the group and not acknowledged).
 */
public final class GroupLag {
  private static final CommandObjects COMMANDS = new CommandObjects();

  private GroupLag() {}

  /**
   * The sum over {@code streams}; empty when a stream lacks the group, or Redis cannot tell a
   * stream's lag (before 7.0, or after entries were deleted from the middle of the stream).
   */
  public static OptionalLong read(Connection connection, List<String> streams, String group) {
    long total = 0;
    for (String stream : streams) {
      OptionalLong one = ofStream(connection.executeCommand(COMMANDS.xinfoGroups(stream)), group);
      if (one.isEmpty()) {
        return one;
      }
      total += one.getAsLong();
    }
    return OptionalLong.of(total);
  }

  private static OptionalLong ofStream(List<StreamGroupInfo> groups, String group) {
    for (StreamGroupInfo info : groups) {
      if (group.equals(info.getName())) {
        Object lag = info.getGroupInfo().get("lag");
        return lag instanceof Number undelivered
            ? OptionalLong.of(undelivered.longValue() + info.getPending())
            : OptionalLong.empty();
      }
    }
    return OptionalLong.empty();
  }
}
