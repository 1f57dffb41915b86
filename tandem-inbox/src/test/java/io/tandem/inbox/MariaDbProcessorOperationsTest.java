package io.tandem.inbox;

import io.tandem.testkit.RequiresMariaDb;
import java.sql.SQLException;

@RequiresMariaDb
class MariaDbProcessorOperationsTest extends ProcessorOperationsTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.mariadb(prefix);
  }
}
