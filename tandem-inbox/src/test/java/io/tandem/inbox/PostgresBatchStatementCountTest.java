package io.tandem.inbox;

import java.sql.SQLException;

class PostgresBatchStatementCountTest extends BatchStatementCountTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.postgres(prefix);
  }

  @Override
  int steadyBound() {
    return 4; // lock, inbox insert, position update with the parked check, commit
  }

  @Override
  int newAggregatesBound() {
    return 5; // and the missing positions' insert
  }
}
