package io.tandem.inbox;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A data source that records what its connections send: every statement execution by its SQL text
 * ({@code executeBatch} is one entry, one round trip), and every commit, rollback and savepoint
 * call. What the driver does on its own (a pool's validation, {@code setAutoCommit}) is not
 * recorded. Thread-safe.
 */
final class CountingDataSource extends DelegatingDataSource {
  private final List<String> calls = new ArrayList<>();

  CountingDataSource(DataSource delegate) {
    super(delegate);
  }

  /** What was sent since the last {@link #reset()}, in order. */
  synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  synchronized void reset() {
    calls.clear();
  }

  private synchronized void record(String call) {
    calls.add(call.replaceAll("\\s+", " ").trim());
  }

  @Override
  Connection wrap(Connection real) {
    return proxy(
        Connection.class,
        real,
        (method, args) -> {
          switch (method) {
            case "commit" -> record("COMMIT");
            case "rollback" -> record(args == null ? "ROLLBACK" : "ROLLBACK TO SAVEPOINT");
            case "setSavepoint" -> record("SAVEPOINT");
            case "releaseSavepoint" -> record("RELEASE SAVEPOINT");
            default -> {}
          }
        },
        (method, args, result) -> {
          if (result instanceof CallableStatement) {
            return result;
          } else if (result instanceof PreparedStatement ps) {
            String sql = (String) args[0];
            return proxy(PreparedStatement.class, ps, statementHook(sql), (m, a, r) -> r);
          } else if (result instanceof Statement s) {
            return proxy(Statement.class, s, statementHook(null), (m, a, r) -> r);
          }
          return result;
        });
  }

  private Before statementHook(String prepared) {
    return (method, args) -> {
      if (method.startsWith("execute")) {
        String sql = args != null && args.length > 0 && args[0] instanceof String s ? s : prepared;
        record(method.equals("executeBatch") ? "BATCH " + sql : sql);
      }
    };
  }

  @FunctionalInterface
  private interface Before {
    void call(String method, Object[] args);
  }

  @FunctionalInterface
  private interface After {
    Object wrap(String method, Object[] args, Object result);
  }

  private static <T> T proxy(Class<T> type, T target, Before before, After after) {
    return type.cast(
        Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (p, m, args) -> {
              before.call(m.getName(), args);
              try {
                return after.wrap(m.getName(), args, m.invoke(target, args));
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            }));
  }
}
