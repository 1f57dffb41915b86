package io.tandem.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.redis.internal.EntryAcknowledger.EntryKey;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.params.XReadGroupParams;

class EntryAcknowledgerTest {
  private static final String URI_TEXT =
      System.getenv().getOrDefault("TANDEM_REDIS_URI", "redis://127.0.0.1:6379");

  private final String stream = "t" + UUID.randomUUID().toString().substring(0, 8) + ":order";
  private final RedisClient admin = RedisClient.create(URI.create(URI_TEXT));
  private final URI uri = RedisConnections.parseUri(URI_TEXT);
  private final ConnectionPool pool =
      RedisConnections.pool(uri, RedisConnections.clientConfig(uri, Duration.ofSeconds(2)), 2);
  private final EntryAcknowledger acknowledger =
      new EntryAcknowledger(pool, "billing", Duration.ofSeconds(2));

  @AfterEach
  void cleanUp() {
    pool.close();
    admin.del(stream);
    admin.close();
  }

  private EntryKey delivered() {
    admin.xgroupCreate(stream, "billing", new StreamEntryID(0, 0), true);
    StreamEntryID id = admin.xadd(stream, XAddParams.xAddParams(), Map.of("data", "{}"));
    admin.xreadGroup(
        "billing",
        "c1",
        XReadGroupParams.xReadGroupParams().count(1),
        Map.of(stream, StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
    return new EntryKey(stream, id);
  }

  @Test
  void anEntryIsHandedOverOnceUntilItIsAcknowledged() {
    EntryKey entry = delivered();

    assertThat(acknowledger.handOver(entry)).isTrue();
    assertThat(acknowledger.handOver(entry)).isFalse();
    acknowledger.acknowledge(entry);

    assertThat(admin.xpending(stream, "billing").getTotal()).isZero();
    assertThat(acknowledger.isHandedOver(entry)).isFalse();
  }

  @Test
  void anEntryAcknowledgedDuringAPendingReadIsNotHandedOverFromThatReadsReply() {
    EntryKey entry = delivered();
    acknowledger.handOver(entry);

    acknowledger.pendingReadStarts(); // XAUTOCLAIM sent; its reply still lists the entry
    acknowledger.acknowledge(entry);

    assertThat(acknowledger.handOver(entry)).isFalse();
    acknowledger.pendingReadEnded();
    assertThat(acknowledger.isHandedOver(entry)).isFalse();
  }

  @Test
  void aFailedAcknowledgementLeavesTheEntryFreeToBeDeliveredAgain() {
    EntryKey entry = delivered();
    acknowledger.handOver(entry);
    pool.close();

    acknowledger.acknowledge(entry); // does not throw

    assertThat(admin.xpending(stream, "billing").getTotal()).isEqualTo(1);
    assertThat(acknowledger.handOver(entry)).isTrue();
  }
}
