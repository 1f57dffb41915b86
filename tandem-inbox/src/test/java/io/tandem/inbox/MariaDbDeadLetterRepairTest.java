package io.tandem.inbox;

import io.tandem.testkit.RequiresMariaDb;
import java.sql.SQLException;

@RequiresMariaDb
class MariaDbDeadLetterRepairTest extends DeadLetterRepairTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.mariadb(prefix);
  }
}
