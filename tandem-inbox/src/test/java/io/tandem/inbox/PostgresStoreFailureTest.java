package io.tandem.inbox;

import java.sql.SQLException;

class PostgresStoreFailureTest extends StoreFailureTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.postgres(prefix);
  }
}
