package io.tandem.saga.trail;

import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestInfrastructure;

/** The saga trail with the payment service on MariaDB, the others on PostgreSQL. */
@RequiresMariaDb
class MariaDbSagaTrailTest extends SagaTrailContract {
  @Override
  DatabaseServer server() {
    return TestInfrastructure.mariadb();
  }
}
