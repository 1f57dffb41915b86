package io.tandem.outbox;

import io.tandem.testkit.RequiresMariaDb;

@RequiresMariaDb
class MariaDbOutboxRetentionTest extends OutboxRetentionTest {
  @Override
  OutboxDatabase openDatabase(String prefix) {
    return OutboxDatabase.mariadb(prefix);
  }
}
