package io.tandem.outbox;

import io.tandem.testkit.RequiresMariaDb;

@RequiresMariaDb
class MariaDbOutboxRelayTest extends OutboxRelayTest {
  @Override
  OutboxDatabase openDatabase(String prefix) {
    return OutboxDatabase.mariadb(prefix);
  }
}
