package io.tandem.outbox;

import io.tandem.testkit.RequiresMariaDb;

@RequiresMariaDb
class MariaDbOutboxEnvelopeRulesTest extends OutboxEnvelopeRulesTest {
  @Override
  OutboxDatabase openDatabase(String prefix) {
    return OutboxDatabase.mariadb(prefix);
  }
}
