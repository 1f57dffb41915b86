package io.tandem.core.spi;

/** Where a {@link MessageSource} hands the messages it receives: a consumer runner. */
@FunctionalInterface
public interface MessageSink {

  /**
   * Takes {@code message} for processing. Blocks while the runner is full (back-pressure: the
   * source must not fetch more meanwhile).
   *
   * @return {@code false} when the runner is stopping and did not take the message; the source must
   *     then stop receiving and leave the message unsettled (it will be redelivered)
   * @throws InterruptedException when the source's thread is interrupted while waiting
   */
  boolean accept(InboundMessage message) throws InterruptedException;
}
