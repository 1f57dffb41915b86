package io.tandem.nats.contract;

import io.tandem.testkit.RequiresMariaDb;

/** The consumer contract with NATS JetStream and MariaDB as the consumer database. */
@RequiresMariaDb
class NatsMariaDbConsumerContractTest extends NatsConsumerContract {
  @Override
  protected boolean postgres() {
    return false;
  }
}
