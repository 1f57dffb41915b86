package io.tandem.rabbitmq.contract;

/** The consumer contract with RabbitMQ and PostgreSQL as the consumer database. */
class RabbitPostgresConsumerContractTest extends RabbitConsumerContract {
  @Override
  protected boolean postgres() {
    return true;
  }
}
