package io.tandem.inbox;

import io.tandem.testkit.RequiresMariaDb;
import java.sql.SQLException;

@RequiresMariaDb
class MariaDbBatchPositionsRaceTest extends BatchPositionsRaceTest {
  @Override
  InboxDatabase openDatabase(String prefix) throws SQLException {
    return InboxDatabase.mariadb(prefix);
  }

  @Override
  String lockWaitCount() {
    return "SELECT count(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'"
        + " AND trx_mysql_thread_id <> CONNECTION_ID()";
  }
}
