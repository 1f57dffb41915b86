package io.tandem.outbox;

class PostgresOutboxAppendTest extends OutboxAppendTest {
  @Override
  OutboxDatabase openDatabase(String prefix) {
    return OutboxDatabase.postgres(prefix);
  }
}
