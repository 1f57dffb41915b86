package io.tandem.cdc.internal;

import io.tandem.cdc.CdcRelaySettings;
import io.tandem.cdc.CdcSetupException;
import io.tandem.core.ErrorSummary;
import io.tandem.core.TandemException;
import io.tandem.jdbc.JdbcException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * What a CDC relay's start waits for: the database's setup checked ({@link SetupCheck}, {@link
 * MariaDbSetupCheck}: the message says what to change), then the engine's task started and a client
 * streaming (from the slot on PostgreSQL, from the binlog on MariaDB), within the start timeout.
 */
public final class StartupGate {
  private StartupGate() {}

  /** Checks the setup; the exception says what to change. */
  public static SetupCheck.Location verify(CdcRelaySettings s, CdcDialect dialect) {
    try (Connection c = s.dataSource().getConnection()) {
      return dialect.replicationSlots()
          ? SetupCheck.verify(c, s.slotName(), s.publicationName(), s.createPublication())
          : MariaDbSetupCheck.verify(c);
    } catch (SQLException e) {
      throw new JdbcException("checking the database's setup for the CDC relay failed", e);
    }
  }

  /**
   * Waits until the engine streams; the reason it does not, if it does not.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  public static Optional<RuntimeException> awaitStreaming(
      CdcRelaySettings s, EngineRunner engine, SlotMonitor monitor) throws InterruptedException {
    String problem = null;
    if (!engine.awaitStarted(s.startTimeout())) {
      problem = "did not start streaming from slot '%s' within %s";
    } else if (engine.failure().isEmpty() && !awaitSlotActive(s, engine, monitor)) {
      problem = "started its engine, but no client streams from slot '%s' after %s";
    }
    Optional<Throwable> failure = engine.failure();
    if (failure.isPresent()) {
      return Optional.of(
          new CdcSetupException(
              "CDC relay " + s.relayId() + " could not start: " + ErrorSummary.of(failure.get()),
              failure.get()));
    }
    if (problem != null) {
      return Optional.of(
          new TandemException(
              "CDC relay "
                  + s.relayId()
                  + " "
                  + String.format(problem, s.slotName(), s.startTimeout())
                  + "; see the log for Debezium's messages"));
    }
    return Optional.empty();
  }

  private static boolean awaitSlotActive(
      CdcRelaySettings s, EngineRunner engine, SlotMonitor monitor) throws InterruptedException {
    long deadline = System.nanoTime() + s.startTimeout().toNanos();
    while (System.nanoTime() < deadline && engine.failure().isEmpty()) {
      if (monitor.slotActive()) {
        return true;
      }
      Thread.sleep(100);
    }
    return false;
  }
}
