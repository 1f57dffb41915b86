package io.tandem.nats.contract;

/** The consumer contract with NATS JetStream and PostgreSQL as the consumer database. */
class NatsPostgresConsumerContractTest extends NatsConsumerContract {
  @Override
  protected boolean postgres() {
    return true;
  }
}
