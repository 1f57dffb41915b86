package io.tandem.inbox;

import java.sql.SQLException;

class PostgresInboxBatchTest extends InboxBatchTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.postgres(prefix);
  }
}
