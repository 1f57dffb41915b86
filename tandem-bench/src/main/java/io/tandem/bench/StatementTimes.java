package io.tandem.bench;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Diagnostic for {@code TANDEM_BENCH_TRACE}: wraps a data source so that every statement execution
 * (by its SQL text), every commit and every savepoint call is counted and timed on the calling
 * thread, and prints where a run's database round trips went. Thread-safe.
 */
final class StatementTimes {
  private final Map<String, AtomicLong[]> times = new ConcurrentHashMap<>();

  /** Whether {@code TANDEM_BENCH_TRACE} asks for the breakdown. */
  static boolean enabled() {
    return System.getenv("TANDEM_BENCH_TRACE") != null;
  }

  DataSource wrap(DataSource ds) {
    return proxy(
        DataSource.class,
        ds,
        null,
        (m, args, result) ->
            m.getName().equals("getConnection")
                ? proxy(Connection.class, (Connection) result, null, this::onConnection)
                : result);
  }

  /** Calls, total ms and µs per event of each statement kind, largest first. */
  String report(String run, long events, double wallMs) {
    List<Map.Entry<String, AtomicLong[]>> entries = new ArrayList<>(times.entrySet());
    entries.sort((a, b) -> Long.compare(b.getValue()[1].get(), a.getValue()[1].get()));
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(Locale.ROOT, "[trace] %s: %d events in %.0f ms%n", run, events, wallMs));
    long total = 0;
    for (Map.Entry<String, AtomicLong[]> e : entries) {
      long calls = e.getValue()[0].get();
      long nanos = e.getValue()[1].get();
      total += nanos;
      sb.append(
          String.format(
              Locale.ROOT,
              "[trace]   %7d calls %8.0f ms %7.1f µs/event  %s%n",
              calls,
              nanos / 1e6,
              nanos / 1e3 / events,
              e.getKey()));
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "[trace]   database calls %.0f ms of %.0f ms (%.0f%%)%n",
            total / 1e6,
            wallMs,
            100 * total / 1e6 / wallMs));
    return sb.toString();
  }

  private Object onConnection(Method m, Object[] args, Object result) {
    return switch (m.getName()) {
      case "prepareStatement" ->
          proxy(
              PreparedStatement.class,
              (PreparedStatement) result,
              key((String) args[0]),
              (m2, a2, r2) -> r2);
      case "createStatement" ->
          proxy(Statement.class, (Statement) result, null, (m2, a2, r2) -> r2);
      default -> result;
    };
  }

  private static String key(String sql) {
    String s = sql.replaceAll("\\s+", " ").trim();
    return s.length() > 90 ? s.substring(0, 90) + "…" : s;
  }

  private void add(String key, long nanos) {
    AtomicLong[] t =
        times.computeIfAbsent(key, k -> new AtomicLong[] {new AtomicLong(), new AtomicLong()});
    t[0].incrementAndGet();
    t[1].addAndGet(nanos);
  }

  /** What to do with a call's result (wrap it), after the call. */
  @FunctionalInterface
  private interface Hook {
    Object after(Method m, Object[] args, Object result);
  }

  /** {@code sql}: the key of a prepared statement's executions. */
  private <T> T proxy(Class<T> type, T target, String sql, Hook hook) {
    InvocationHandler h =
        (p, m, args) -> {
          String timedAs = timedAs(type, sql, m, args);
          long start = System.nanoTime();
          Object result;
          try {
            result = m.invoke(target, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          } finally {
            if (timedAs != null) {
              add(timedAs, System.nanoTime() - start);
            }
          }
          return hook.after(m, args, result);
        };
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
  }

  private static String timedAs(Class<?> type, String sql, Method m, Object[] args) {
    String name = m.getName();
    if (type == DataSource.class) {
      return name.equals("getConnection") ? "pool: getConnection" : null;
    }
    if (type == Connection.class) {
      return switch (name) {
        case "commit" -> "COMMIT";
        case "rollback" -> args == null ? "ROLLBACK" : "ROLLBACK TO SAVEPOINT";
        case "setSavepoint" -> "SAVEPOINT";
        case "releaseSavepoint" -> "RELEASE SAVEPOINT";
        case "setAutoCommit" -> "set autocommit";
        default -> null;
      };
    }
    if (!name.startsWith("execute")) {
      return null;
    }
    if (args != null && args.length > 0 && args[0] instanceof String given) {
      return key(given);
    }
    return sql;
  }
}
