package io.tandem.saga.trail;

import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.TestInfrastructure;

/** The saga trail with every service on PostgreSQL. */
class PostgresSagaTrailTest extends SagaTrailContract {
  @Override
  DatabaseServer server() {
    return TestInfrastructure.postgres();
  }
}
