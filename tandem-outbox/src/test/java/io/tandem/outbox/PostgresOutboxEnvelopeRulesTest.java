package io.tandem.outbox;

class PostgresOutboxEnvelopeRulesTest extends OutboxEnvelopeRulesTest {
  @Override
  OutboxDatabase openDatabase(String prefix) {
    return OutboxDatabase.postgres(prefix);
  }
}
