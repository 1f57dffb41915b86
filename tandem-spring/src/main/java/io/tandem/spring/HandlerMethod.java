package io.tandem.spring;

import io.tandem.core.Event;
import io.tandem.inbox.InboxWork;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.util.Objects;
import javax.sql.DataSource;

/** One {@link TandemHandler} method of one bean, as the inbox's work for its event type. */
public final class HandlerMethod {
  private final Object bean;
  private final Method method;
  private final TandemHandler annotation;
  private final Class<?> payloadType;

  HandlerMethod(Object bean, Method method, TandemHandler annotation) {
    this.bean = Objects.requireNonNull(bean, "bean");
    this.method = Objects.requireNonNull(method, "method");
    this.annotation = Objects.requireNonNull(annotation, "annotation");
    Class<?> payload = null;
    for (Class<?> p : method.getParameterTypes()) {
      if (p == Event.class || p == Connection.class) {
        continue;
      }
      if (payload != null) {
        throw new IllegalStateException(
            "@TandemHandler method "
                + describe()
                + " takes two payload parameters ("
                + payload.getSimpleName()
                + ", "
                + p.getSimpleName()
                + "): it may take the Event, the Connection and one payload type");
      }
      payload = p;
    }
    this.payloadType = payload;
    if (annotation.consumer().isBlank()
        || annotation.aggregateType().isBlank()
        || annotation.eventType().isBlank()) {
      throw new IllegalStateException(
          "@TandemHandler on " + describe() + " needs consumer, aggregateType and eventType");
    }
    method.setAccessible(true);
  }

  public TandemHandler annotation() {
    return annotation;
  }

  /** {@code Bean.method(...)}, for messages. */
  public String describe() {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName();
  }

  /**
   * The inbox work calling this method with the inbox's transaction bound to {@code dataSource}.
   */
  InboxWork<Exception> work(DataSource dataSource) {
    return (connection, event) ->
        InboxTransactionBinding.call(dataSource, connection, () -> invoke(connection, event));
  }

  private Object invoke(Connection connection, Event event) throws Exception {
    Class<?>[] types = method.getParameterTypes();
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      if (types[i] == Event.class) {
        args[i] = event;
      } else if (types[i] == Connection.class) {
        args[i] = connection;
      } else {
        args[i] = event.payloadAs(payloadType);
      }
    }
    try {
      return method.invoke(bean, args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception ex) {
        throw ex;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }
}
