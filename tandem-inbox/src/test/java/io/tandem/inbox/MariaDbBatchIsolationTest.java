package io.tandem.inbox;

import io.tandem.testkit.RequiresMariaDb;
import java.sql.SQLException;

@RequiresMariaDb
class MariaDbBatchIsolationTest extends BatchIsolationTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.mariadb(prefix);
  }
}
