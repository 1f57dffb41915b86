package io.tandem.inbox;

import java.sql.SQLException;

class PostgresProcessorOperationsTest extends ProcessorOperationsTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.postgres(prefix);
  }
}
