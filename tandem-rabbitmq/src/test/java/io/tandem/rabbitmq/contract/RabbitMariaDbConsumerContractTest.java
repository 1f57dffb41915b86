package io.tandem.rabbitmq.contract;

import io.tandem.testkit.RequiresMariaDb;

/** The consumer contract with RabbitMQ and MariaDB as the consumer database. */
@RequiresMariaDb
class RabbitMariaDbConsumerContractTest extends RabbitConsumerContract {
  @Override
  protected boolean postgres() {
    return false;
  }
}
