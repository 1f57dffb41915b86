package io.tandem.outbox;

import io.tandem.testkit.RequiresMariaDb;

@RequiresMariaDb
class MariaDbOutboxAppendTest extends OutboxAppendTest {
  @Override
  OutboxDatabase openDatabase(String prefix) {
    return OutboxDatabase.mariadb(prefix);
  }
}
