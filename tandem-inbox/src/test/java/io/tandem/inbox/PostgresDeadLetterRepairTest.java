package io.tandem.inbox;

import java.sql.SQLException;

class PostgresDeadLetterRepairTest extends DeadLetterRepairTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.postgres(prefix);
  }
}
