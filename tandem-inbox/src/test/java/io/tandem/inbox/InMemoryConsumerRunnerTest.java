package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.spi.MessageSource;
import io.tandem.inbox.contract.ConsumerRunnerContract;
import io.tandem.inbox.contract.SourceFactory;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * The consumer contract against a broker in the test's memory, on PostgreSQL: the runner's and the
 * processor's logic without any broker's. The transports run the same contract with real brokers
 * and both databases, including the SIGKILL test this broker cannot outlive.
 */
class InMemoryConsumerRunnerTest extends ConsumerRunnerContract {
  private final InMemoryBroker broker = new InMemoryBroker();

  @Override
  protected boolean postgres() {
    return true;
  }

  @Override
  protected void prepare(String group, String aggregateType) {}

  @Override
  protected MessageSource source(String group, String aggregateType) {
    return broker.source(group, aggregateType);
  }

  @Override
  protected void publish(List<Event> events) {
    events.forEach(broker::publish);
  }

  @Override
  protected void publishInvalid(String aggregateType, String key) {
    broker.publishInvalid(aggregateType, key);
  }

  @Override
  protected Class<? extends SourceFactory> sourceFactory() {
    Assumptions.abort("an in-memory broker does not outlive its process; transports run this");
    return null;
  }
}
