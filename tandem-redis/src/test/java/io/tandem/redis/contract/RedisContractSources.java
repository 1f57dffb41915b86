package io.tandem.redis.contract;

import io.tandem.inbox.contract.SourceFactory;
import io.tandem.redis.RedisStreamsMessageSource;
import io.tandem.redis.internal.StreamKeys;
import java.time.Duration;

/**
 * The contract's sources, in the test JVM and in the child JVM of the SIGKILL test: the group on
 * the aggregate type's stream ({@value #PREFIX} + the type, as {@code
 * StreamRouter.byAggregateType(PREFIX)} writes it), with a short {@code claimIdleAfter} so that a
 * dead consumer's entries come back within seconds. The server is named by system property {@value
 * #URI_PROPERTY} (else {@code TANDEM_REDIS_URI}, else the local default).
 */
public final class RedisContractSources implements SourceFactory {
  static final String URI_PROPERTY = "tandem.redis.uri";
  static final String PREFIX = "tandem-contract:";
  static final Duration CLAIM_IDLE_AFTER = Duration.ofSeconds(2);

  public RedisContractSources() {}

  static String uri() {
    String value = System.getProperty(URI_PROPERTY);
    if (value == null || value.isBlank()) {
      value = System.getenv("TANDEM_REDIS_URI");
    }
    return value == null || value.isBlank() ? "redis://127.0.0.1:6379" : value.strip();
  }

  static String stream(String aggregateType) {
    return PREFIX + StreamKeys.sanitize(aggregateType);
  }

  static RedisStreamsMessageSource source(String group, String aggregateType) {
    return RedisStreamsMessageSource.builder()
        .uri(uri())
        .streams(stream(aggregateType))
        .group(group)
        .pollTimeout(Duration.ofMillis(500))
        .claimIdleAfter(CLAIM_IDLE_AFTER)
        .lagInterval(Duration.ofMillis(200))
        .build();
  }

  @Override
  public RedisStreamsMessageSource create(String group, String aggregateType) {
    return source(group, aggregateType);
  }
}
