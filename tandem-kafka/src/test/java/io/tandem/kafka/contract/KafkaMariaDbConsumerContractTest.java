package io.tandem.kafka.contract;

import io.tandem.testkit.RequiresMariaDb;

/** The consumer contract with Kafka and MariaDB as the consumer database. */
@RequiresMariaDb
class KafkaMariaDbConsumerContractTest extends KafkaConsumerContract {
  @Override
  protected boolean postgres() {
    return false;
  }
}
