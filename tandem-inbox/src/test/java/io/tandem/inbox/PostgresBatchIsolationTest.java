package io.tandem.inbox;

import java.sql.SQLException;

class PostgresBatchIsolationTest extends BatchIsolationTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.postgres(prefix);
  }
}
