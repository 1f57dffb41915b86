package io.tandem.cli;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Ctrl-C (SIGINT) or SIGTERM as a request to stop, without starting the JVM's shutdown: the caller
 * tears down in order on its own thread (relays and consumers before the databases they use)
 * instead of racing the other shutdown hooks. A second signal gets the JVM's default behaviour.
 *
 * <p>Uses {@code sun.misc.Signal} (module {@code jdk.unsupported}) by reflection; where it is not
 * available, a shutdown hook releases the latch instead (and the teardown then races the JVM's
 * exit).
 */
final class StopSignal {
  private StopSignal() {}

  /** Releases {@code stop} on the first SIGINT or SIGTERM; true when signals are handled so. */
  static boolean releaseOnSignal(CountDownLatch stop) {
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
      Object defaultHandler = handlerType.getField("SIG_DFL").get(null);
      var handle = signal.getMethod("handle", signal, handlerType);
      List<Object> signals = List.of(signal(signal, "INT"), signal(signal, "TERM"));
      InvocationHandler onSignal =
          (proxy, method, args) -> {
            switch (method.getName()) {
              case "handle" -> {
                for (Object s : signals) {
                  handle.invoke(null, s, defaultHandler); // a second Ctrl-C stops the JVM
                }
                stop.countDown();
                return null;
              }
              case "hashCode" -> {
                return System.identityHashCode(proxy);
              }
              case "equals" -> {
                return proxy == args[0];
              }
              default -> {
                return "StopSignal";
              }
            }
          };
      Object handler =
          Proxy.newProxyInstance(
              StopSignal.class.getClassLoader(), new Class<?>[] {handlerType}, onSignal);
      for (Object s : signals) {
        handle.invoke(null, s, handler);
      }
      return true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError unavailable) {
      Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "tandem-stop"));
      return false;
    }
  }

  private static Object signal(Class<?> signal, String name) throws ReflectiveOperationException {
    return signal.getConstructor(String.class).newInstance(name);
  }
}
