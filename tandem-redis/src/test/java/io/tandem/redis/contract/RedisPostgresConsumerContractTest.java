package io.tandem.redis.contract;

/** The consumer contract with Redis Streams and PostgreSQL as the consumer database. */
class RedisPostgresConsumerContractTest extends RedisConsumerContract {
  @Override
  protected boolean postgres() {
    return true;
  }
}
