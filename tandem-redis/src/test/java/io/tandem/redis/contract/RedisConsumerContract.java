package io.tandem.redis.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.inbox.contract.ConsumerRunnerContract;
import io.tandem.inbox.contract.SourceFactory;
import io.tandem.redis.RedisStreamsTransport;
import io.tandem.redis.StreamRouter;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.XAddParams;

/**
 * The consumer contract with Redis Streams: one stream per aggregate type ({@code
 * tandem-contract:<type>}), written by {@link RedisStreamsTransport}, and one consumer group per
 * test created at the stream's start. Streams are deleted after the class.
 */
abstract class RedisConsumerContract extends ConsumerRunnerContract {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final Set<String> streams = ConcurrentHashMap.newKeySet();
  private RedisClient admin;
  private RedisStreamsTransport transport;

  private synchronized RedisClient admin() {
    if (admin == null) {
      admin = RedisClient.create(URI.create(RedisContractSources.uri()));
    }
    return admin;
  }

  @Override
  protected void prepare(String group, String aggregateType) {
    String stream = RedisContractSources.stream(aggregateType);
    streams.add(stream);
    try {
      admin().xgroupCreate(stream, group, new StreamEntryID(0, 0), true);
    } catch (JedisDataException e) {
      if (!e.getMessage().startsWith("BUSYGROUP")) {
        throw e;
      }
    }
  }

  @Override
  protected MessageSource source(String group, String aggregateType) {
    return RedisContractSources.source(group, aggregateType);
  }

  @Override
  protected void publish(List<Event> events) {
    if (transport == null) {
      transport =
          RedisStreamsTransport.builder()
              .uri(RedisContractSources.uri())
              .source("/tandem/contract")
              .streamRouter(StreamRouter.byAggregateType(RedisContractSources.PREFIX))
              .build();
    }
    List<PublishOutcome> outcomes = transport.publish(events, TIMEOUT);
    assertThat(outcomes).allSatisfy(o -> assertThat(o.acknowledged()).as(o.toString()).isTrue());
  }

  /** An entry on the aggregate type's stream without {@code ce_id} and with a garbage body. */
  @Override
  protected void publishInvalid(String aggregateType, String key) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("ce_specversion", "1.0");
    fields.put("ce_source", "/tandem/contract");
    fields.put("ce_type", "Changed");
    fields.put("ce_partitionkey", key);
    fields.put("note", "not a Tandem CloudEvent");
    fields.put("data", "garbage, not JSON");
    admin().xadd(RedisContractSources.stream(aggregateType), XAddParams.xAddParams(), fields);
  }

  @Override
  protected Class<? extends SourceFactory> sourceFactory() {
    return RedisContractSources.class;
  }

  @Override
  protected Map<String, String> childProperties() {
    return Map.of(RedisContractSources.URI_PROPERTY, RedisContractSources.uri());
  }

  @AfterAll
  void deleteStreams() {
    if (transport != null) {
      transport.close();
    }
    if (!streams.isEmpty()) {
      admin().del(streams.toArray(new String[0]));
    }
    admin().close();
  }
}
