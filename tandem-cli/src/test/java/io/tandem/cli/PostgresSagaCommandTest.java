package io.tandem.cli;

import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.TestInfrastructure;

/** {@link SagaCommandContract} on PostgreSQL. */
class PostgresSagaCommandTest extends SagaCommandContract {
  @Override
  DatabaseServer server() {
    return TestInfrastructure.postgres();
  }
}
