package io.tandem.inbox.contract;

import io.tandem.core.spi.MessageSource;

/**
 * Creates a transport's source in a child JVM of {@link ConsumerRunnerContract} (public class,
 * public no-argument constructor). It reads what it needs to reach the broker from the system
 * properties the contract's {@link ConsumerRunnerContract#childProperties()} passes.
 */
public interface SourceFactory {
  MessageSource create(String group, String aggregateType);
}
