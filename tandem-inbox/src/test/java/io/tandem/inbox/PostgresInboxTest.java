package io.tandem.inbox;

import java.sql.SQLException;

class PostgresInboxTest extends InboxTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.postgres(prefix);
  }
}
