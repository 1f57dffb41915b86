package io.tandem.spring;

import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.Transport;
import io.tandem.redis.RedisStreamsMessageSource;
import io.tandem.redis.RedisStreamsTransport;
import io.tandem.redis.StreamRouter;
import java.util.List;

/** Redis Streams: one stream per aggregate type ({@code tandem:order}), one group per consumer. */
final class RedisBroker implements TandemBroker {
  private final TandemProperties.Redis redis;
  private final String source;

  RedisBroker(TandemProperties.Redis redis, String source) {
    this.redis = redis;
    this.source = source;
  }

  @Override
  public String name() {
    return "redis";
  }

  @Override
  public Transport transport() {
    return RedisStreamsTransport.builder().uri(redis.getUri()).source(source).build();
  }

  @Override
  public MessageSource source(String group, List<String> aggregateTypes) {
    StreamRouter router = StreamRouter.byAggregateType();
    return RedisStreamsMessageSource.builder()
        .uri(redis.getUri())
        .streams(
            aggregateTypes.stream().map(t -> router.streamFor(TandemBroker.probe(t, "x"))).toList())
        .group(group)
        .build();
  }
}
