package io.tandem.outbox;

class PostgresOutboxRetentionTest extends OutboxRetentionTest {
  @Override
  OutboxDatabase openDatabase(String prefix) {
    return OutboxDatabase.postgres(prefix);
  }
}
