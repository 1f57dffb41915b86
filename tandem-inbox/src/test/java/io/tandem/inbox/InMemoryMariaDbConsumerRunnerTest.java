package io.tandem.inbox;

import io.tandem.testkit.RequiresMariaDb;

/** {@link InMemoryConsumerRunnerTest} with MariaDB as the consumer's database. */
@RequiresMariaDb
class InMemoryMariaDbConsumerRunnerTest extends InMemoryConsumerRunnerTest {
  @Override
  protected boolean postgres() {
    return false;
  }
}
