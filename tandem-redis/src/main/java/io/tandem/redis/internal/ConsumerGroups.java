package io.tandem.redis.internal;

import java.util.List;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.XPendingParams;

/** Creating a consumer group and removing a consumer that has nothing pending. */
public final class ConsumerGroups {
  private static final CommandObjects COMMANDS = new CommandObjects();

  private ConsumerGroups() {}

  /**
   * {@code XGROUP CREATE stream group 0 MKSTREAM}: the group starts at the stream's beginning, so
   * nothing published before the first consumer ran is skipped. A group that exists is kept as it
   * is ({@code BUSYGROUP}).
   */
  public static void create(Connection connection, String stream, String group) {
    try {
      connection.executeCommand(
          COMMANDS.xgroupCreate(stream, group, new StreamEntryID(0, 0), true));
    } catch (JedisDataException e) {
      if (e.getMessage() == null || !e.getMessage().startsWith("BUSYGROUP")) {
        throw e;
      }
    }
  }

  /** Whether {@code e} is a {@code NOGROUP} reply: the group or the stream was deleted. */
  public static boolean isNoGroup(JedisDataException e) {
    return e.getMessage() != null && e.getMessage().startsWith("NOGROUP");
  }

  /**
   * Removes {@code consumer} from the group on each stream where it has no pending entry ({@code
   * XGROUP DELCONSUMER} would drop pending entries, which would then never be delivered again).
   *
   * @return how many streams still hold pending entries of the consumer
   */
  public static int deleteConsumerIfIdle(
      Connection connection, List<String> streams, String group, String consumer) {
    int kept = 0;
    for (String stream : streams) {
      List<?> pending =
          connection.executeCommand(
              COMMANDS.xpending(
                  stream, group, XPendingParams.xPendingParams("-", "+", 1).consumer(consumer)));
      if (pending.isEmpty()) {
        connection.executeCommand(COMMANDS.xgroupDelConsumer(stream, group, consumer));
      } else {
        kept++;
      }
    }
    return kept;
  }
}
