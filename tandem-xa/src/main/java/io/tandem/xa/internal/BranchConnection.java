package io.tandem.xa.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The connection the application gets for a branch. Inside an XA branch the drivers still report
 * auto-commit on (PostgreSQL's and MariaDB's both do), which code that joins the caller's
 * transaction, such as {@code Outbox.append}, rightly refuses; this handle reports what is true —
 * it is in a transaction — and refuses what would break the branch: {@code commit()}, {@code
 * rollback()} and switching auto-commit on. {@code close()} does nothing: the coordinator releases
 * the connection when the transaction ends. Savepoints and everything else go to the driver.
 */
final class BranchConnection implements InvocationHandler {
  private final Connection target;
  private final TandemXid xid;

  private BranchConnection(Connection target, TandemXid xid) {
    this.target = target;
    this.xid = xid;
  }

  static Connection wrap(Connection target, TandemXid xid) {
    return (Connection)
        Proxy.newProxyInstance(
            BranchConnection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            new BranchConnection(target, xid));
  }

  /** Closes the driver's handle behind a wrapped connection. */
  static void close(Connection wrapped) throws SQLException {
    if (Proxy.isProxyClass(wrapped.getClass())
        && Proxy.getInvocationHandler(wrapped) instanceof BranchConnection b) {
      b.target.close();
    } else {
      wrapped.close();
    }
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    int arity = args == null ? 0 : args.length;
    switch (method.getName()) {
      case "getAutoCommit":
        return false;
      case "setAutoCommit":
        if ((Boolean) args[0]) {
          throw refused("switched to auto-commit");
        }
        return null;
      case "commit":
        throw refused("committed on its own");
      case "rollback":
        if (arity == 0) {
          throw refused("rolled back on its own (throw from the work to roll back everything)");
        }
        break;
      case "close":
        return null;
      case "equals":
        return proxy == args[0];
      case "hashCode":
        return System.identityHashCode(proxy);
      case "toString":
        return "connection of XA branch " + xid;
      default:
        break;
    }
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private SQLException refused(String what) {
    return new SQLException(
        "the connection of XA branch "
            + xid
            + " cannot be "
            + what
            + ": the coordinator commits or rolls back every branch together",
        "25000");
  }
}
