package io.tandem.outbox;

class PostgresOutboxRelayTest extends OutboxRelayTest {
  @Override
  OutboxDatabase openDatabase(String prefix) {
    return OutboxDatabase.postgres(prefix);
  }

  @Override
  boolean announcesInserts() {
    return true;
  }
}
