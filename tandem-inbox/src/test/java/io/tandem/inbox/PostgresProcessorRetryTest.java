package io.tandem.inbox;

import java.sql.SQLException;

class PostgresProcessorRetryTest extends ProcessorRetryTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.postgres(prefix);
  }
}
