package io.tandem.inbox;

import java.sql.SQLException;

class PostgresInboxProcessorTest extends InboxProcessorTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.postgres(prefix);
  }
}
