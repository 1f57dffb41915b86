package io.tandem.inbox;

import io.tandem.testkit.RequiresMariaDb;
import java.sql.SQLException;

@RequiresMariaDb
class MariaDbBatchStatementCountTest extends BatchStatementCountTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.mariadb(prefix);
  }

  @Override
  int steadyBound() {
    return 4; // lock, inbox insert, position move with the parked check, commit
  }

  @Override
  int newAggregatesBound() {
    return 5; // and the missing positions' insert
  }
}
