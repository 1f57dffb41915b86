package io.tandem.bench;

/** One way of running the transfer in {@code tandem compare}. */
interface CompareApproach extends AutoCloseable {
  /** Its name in the report: {@code 2pc}, {@code saga} or {@code outbox}. */
  String name();

  /**
   * Starts a transfer of one unit from {@code account}. A synchronous approach returns when it is
   * done on both sides and completes {@code probe.expect(id)} itself.
   */
  void transfer(String id, String account) throws Exception;

  /**
   * Kills the component that drives transfers (coordinator, orchestrator, relay) in the middle of
   * transfer {@code id}, and starts its replacement as a deployment would.
   *
   * @return {@link System#nanoTime()} of the kill
   */
  long killMidTransfer(String id, String account) throws Exception;

  /** What the kill was, for the report. */
  String killDescription();

  @Override
  void close();
}
