package io.tandem.xa.internal;

import io.tandem.core.TandemException;
import io.tandem.jdbc.JdbcException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.sql.XADataSource;
import javax.transaction.xa.XAResource;

/**
 * One database taking part in Tandem's transactions: its name (the branch qualifier of its xids),
 * its XA data source and a pool of open XA connections (the drivers' XA data sources open a new
 * physical connection on every call). Thread-safe.
 */
public final class Participant implements AutoCloseable {
  // A connection idle for longer is checked before it is used again.
  private static final long VALIDATE_AFTER_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final String name;
  private final XADataSource source;
  private final int maxConnections;
  private final LinkedBlockingDeque<PooledXaConnection> idle = new LinkedBlockingDeque<>();
  private final Semaphore permits;
  private volatile XaDialect dialect;
  private volatile boolean closed;

  public Participant(String name, XADataSource source, int maxConnections) {
    this.name = TandemXid.checkParticipant(name, "participant name");
    this.source = source;
    this.maxConnections = maxConnections;
    this.permits = new Semaphore(maxConnections, true);
  }

  public String name() {
    return name;
  }

  public int maxConnections() {
    return maxConnections;
  }

  /** The participant's dialect, read from its database on first use. */
  public XaDialect dialect() {
    XaDialect d = dialect;
    if (d == null) {
      PooledXaConnection c = borrow(Duration.ofSeconds(30));
      release(c);
      d = dialect;
    }
    return d;
  }

  /**
   * A connection of the pool, opened when none is idle; waits up to {@code timeout} when all are in
   * use.
   *
   * @throws TandemException when none becomes free in time, or one cannot be opened
   */
  PooledXaConnection borrow(Duration timeout) {
    if (closed) {
      throw new TandemException("participant '" + name + "' is closed");
    }
    try {
      if (!permits.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new TandemException(
            "no free connection to participant '"
                + name
                + "' within "
                + timeout
                + ": all "
                + maxConnections
                + " are in use (raise maxConnectionsPerParticipant or connectionTimeout)");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TandemException("interrupted while waiting for a connection to " + name, e);
    }
    try {
      PooledXaConnection c;
      while ((c = idle.pollFirst()) != null) {
        if (!c.broken() && (c.idleNanos() < VALIDATE_AFTER_NANOS || valid(c))) {
          return c;
        }
        c.close();
      }
      return open();
    } catch (RuntimeException e) {
      permits.release();
      throw e;
    }
  }

  private static boolean valid(PooledXaConnection c) {
    try (Connection handle = c.connection()) {
      return handle.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }

  private PooledXaConnection open() {
    try {
      PooledXaConnection c = new PooledXaConnection(source.getXAConnection());
      try (Connection handle = c.connection()) {
        XaDialect d = dialect;
        if (d == null) {
          d = XaDialect.of(handle);
          dialect = d;
        }
        if (d.sessionSetup().isPresent()) {
          try (Statement s = handle.createStatement()) {
            s.execute(d.sessionSetup().get());
          }
        }
      } catch (SQLException | RuntimeException e) {
        c.close();
        throw e;
      }
      return c;
    } catch (SQLException e) {
      throw new JdbcException("cannot open an XA connection to participant '" + name + "'", e);
    }
  }

  /** Gives a connection back: kept for reuse unless broken or the pool is closed. */
  void release(PooledXaConnection c) {
    try {
      if (c.broken() || closed) {
        c.close();
      } else {
        c.idleFromNow();
        idle.offerFirst(c);
      }
    } finally {
      permits.release();
    }
  }

  /** Closes a connection that must not be reused (its branch's state is unknown). */
  void discard(PooledXaConnection c) {
    c.markBroken();
    release(c);
  }

  /** Runs Tandem's own SQL on a pooled connection, in auto-commit. */
  public <T> T withConnection(Duration timeout, SqlWork<T> work) throws SQLException {
    PooledXaConnection c = borrow(timeout);
    boolean ok = false;
    try (Connection handle = c.connection()) {
      T result = work.run(handle, c.resource());
      ok = true;
      return result;
    } finally {
      if (ok) {
        release(c);
      } else {
        discard(c);
      }
    }
  }

  /** Work on a connection of the pool. */
  @FunctionalInterface
  public interface SqlWork<T> {
    T run(Connection connection, XAResource resource) throws SQLException;
  }

  @Override
  public void close() {
    closed = true;
    PooledXaConnection c;
    while ((c = idle.pollFirst()) != null) {
      c.close();
    }
  }

  @Override
  public String toString() {
    return "participant " + name;
  }
}
