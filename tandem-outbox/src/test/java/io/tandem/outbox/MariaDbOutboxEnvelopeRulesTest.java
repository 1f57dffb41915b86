package io.tandem.outbox;

import io.tandem.testkit.RequiresMariaDb;

@RequiresMariaDb
class MariaDbOutboxEnvelopeRulesTest extends OutboxEnvelopeRulesTest {
  @Override
  OutboxDatabase openDatabase(String prefix, String version) {
    return OutboxDatabase.mariadb(prefix, version);
  }

  @Override
  String lastVersionWithoutTheRules() {
    return "6";
  }
}
