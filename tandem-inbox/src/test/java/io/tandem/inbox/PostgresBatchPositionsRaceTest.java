package io.tandem.inbox;

import java.sql.SQLException;

class PostgresBatchPositionsRaceTest extends BatchPositionsRaceTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.postgres(prefix);
  }

  @Override
  String lockWaitCount() {
    return "SELECT count(*) FROM pg_stat_activity"
        + " WHERE datname = current_database() AND wait_event_type = 'Lock'";
  }
}
