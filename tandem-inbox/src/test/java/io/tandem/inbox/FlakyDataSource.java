package io.tandem.inbox;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A data source whose connections fail the next {@link #failCommits} commits, and the next {@link
 * #failStatements} preparations of a statement containing {@link #statementMarker}, with a
 * non-transient SQL error (SQLState XX000): a database failing outside the handlers.
 */
final class FlakyDataSource extends DelegatingDataSource {
  final AtomicInteger failCommits = new AtomicInteger();
  final AtomicInteger failStatements = new AtomicInteger();
  final AtomicInteger commits = new AtomicInteger();
  volatile String statementMarker = "tandem_inbox_position";

  FlakyDataSource(DataSource delegate) {
    super(delegate);
  }

  @Override
  Connection wrap(Connection real) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("commit")
                  && failCommits.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                real.rollback();
                throw new SQLException("simulated commit failure", "XX000");
              }
              if (method.getName().equals("prepareStatement")
                  && args[0] instanceof String sql
                  && sql.contains(statementMarker)
                  && failStatements.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new SQLException("simulated statement failure", "XX000");
              }
              try {
                Object result = method.invoke(real, args);
                if (method.getName().equals("commit")) {
                  commits.incrementAndGet();
                }
                return result;
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
