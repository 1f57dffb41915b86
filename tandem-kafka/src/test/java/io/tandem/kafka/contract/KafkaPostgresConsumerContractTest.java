package io.tandem.kafka.contract;

/** The consumer contract with Kafka and PostgreSQL as the consumer database. */
class KafkaPostgresConsumerContractTest extends KafkaConsumerContract {
  @Override
  protected boolean postgres() {
    return true;
  }
}
