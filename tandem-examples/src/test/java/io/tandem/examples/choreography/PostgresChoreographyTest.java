package io.tandem.examples.choreography;

/** The choreography with every service on PostgreSQL. */
class PostgresChoreographyTest extends ChoreographyContract {
  @Override
  ChoreographedCheckoutBuilder paymentDatabase(ChoreographedCheckoutBuilder builder) {
    return builder;
  }

  @Override
  boolean paymentOnMariaDb() {
    return false;
  }
}
