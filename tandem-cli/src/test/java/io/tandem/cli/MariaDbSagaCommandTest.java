package io.tandem.cli;

import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.TestInfrastructure;

/** {@link SagaCommandContract} on MariaDB (skipped when none answers). */
class MariaDbSagaCommandTest extends SagaCommandContract {
  @Override
  DatabaseServer server() {
    return TestInfrastructure.mariadb();
  }
}
