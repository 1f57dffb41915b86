package io.tandem.outbox;

class PostgresOutboxEnvelopeRulesTest extends OutboxEnvelopeRulesTest {
  @Override
  OutboxDatabase openDatabase(String prefix, String version) {
    return OutboxDatabase.postgres(prefix, version);
  }

  @Override
  String lastVersionWithoutTheRules() {
    return "8";
  }
}
