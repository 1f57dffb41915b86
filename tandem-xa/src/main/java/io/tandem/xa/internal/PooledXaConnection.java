package io.tandem.xa.internal;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.ConnectionEvent;
import javax.sql.ConnectionEventListener;
import javax.sql.XAConnection;
import javax.transaction.xa.XAResource;

/**
 * One physical XA connection of a participant, kept open between transactions. The driver's
 * connection-error events mark it broken, so that it is closed instead of reused.
 */
final class PooledXaConnection implements ConnectionEventListener {
  private final XAConnection xa;
  private final XAResource resource;
  private volatile boolean broken;
  private volatile long idleSinceNanos = System.nanoTime();

  PooledXaConnection(XAConnection xa) throws SQLException {
    this.xa = xa;
    this.resource = xa.getXAResource();
    xa.addConnectionEventListener(this);
  }

  XAResource resource() {
    return resource;
  }

  /** A handle on the physical connection for the application's work or Tandem's own SQL. */
  Connection connection() throws SQLException {
    return xa.getConnection();
  }

  boolean broken() {
    return broken;
  }

  void markBroken() {
    broken = true;
  }

  long idleNanos() {
    return System.nanoTime() - idleSinceNanos;
  }

  void idleFromNow() {
    idleSinceNanos = System.nanoTime();
  }

  void close() {
    try {
      xa.close();
    } catch (SQLException e) {
      // already broken or closed: nothing to release
    }
  }

  @Override
  public void connectionClosed(ConnectionEvent event) {
    // a logical handle was closed; the physical connection stays
  }

  @Override
  public void connectionErrorOccurred(ConnectionEvent event) {
    broken = true;
  }
}
