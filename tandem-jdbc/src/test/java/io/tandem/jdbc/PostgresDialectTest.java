package io.tandem.jdbc;

import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.TestInfrastructure;

class PostgresDialectTest extends DialectTest {
  @Override
  DatabaseServer server() {
    return TestInfrastructure.postgres();
  }

  @Override
  Dialect expectedDialect() {
    return PostgresDialect.INSTANCE;
  }

  @Override
  String migrationFolder() {
    return "postgresql";
  }
}
