package io.tandem.examples.choreography;

import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestInfrastructure;

/** The choreography with the payment service on MariaDB, the others on PostgreSQL. */
@RequiresMariaDb
class MariaDbChoreographyTest extends ChoreographyContract {
  @Override
  ChoreographedCheckoutBuilder paymentDatabase(ChoreographedCheckoutBuilder builder) {
    return builder.paymentDatabase(TestInfrastructure.mariadb());
  }

  @Override
  boolean paymentOnMariaDb() {
    return true;
  }
}
