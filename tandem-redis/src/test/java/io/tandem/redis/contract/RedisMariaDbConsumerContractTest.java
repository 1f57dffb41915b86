package io.tandem.redis.contract;

import io.tandem.testkit.RequiresMariaDb;

/** The consumer contract with Redis Streams and MariaDB as the consumer database. */
@RequiresMariaDb
class RedisMariaDbConsumerContractTest extends RedisConsumerContract {
  @Override
  protected boolean postgres() {
    return false;
  }
}
