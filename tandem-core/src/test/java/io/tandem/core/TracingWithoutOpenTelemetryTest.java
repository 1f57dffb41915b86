package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Tandem without OpenTelemetry on the class path: tandem-core's classes loaded by a class loader
 * that cannot see {@code io.opentelemetry}, as in an application that does not depend on it.
 */
class TracingWithoutOpenTelemetryTest {

  @Test
  void withoutOpenTelemetryTracingIsTheNoOpAndAppendsNothing() throws Exception {
    ClassLoader withoutOtel = new WithoutOpenTelemetry(getClass().getClassLoader());
    Class<?> tracing = Class.forName(Tracing.class.getName(), true, withoutOtel);
    assertThat(tracing).isNotSameAs(Tracing.class); // really loaded again, in that loader
    Object detected = tracing.getMethod("get").invoke(null);
    assertThat(detected.toString()).isEqualTo("Tracing.NONE");
    assertThat((Map<?, ?>) tracing.getMethod("currentContext").invoke(detected)).isEmpty();
    assertThat(
            Class.forName(
                "io.tandem.core.internal.TracingLoader", true, getClass().getClassLoader()))
        .as("the test's own loader sees OpenTelemetry")
        .isNotNull();
    assertThat(Tracing.get().toString()).isNotEqualTo("Tracing.NONE");
  }

  /** Loads io.tandem.core itself (child first) and refuses io.opentelemetry. */
  private static final class WithoutOpenTelemetry extends ClassLoader {
    WithoutOpenTelemetry(ClassLoader parent) {
      super(parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(name)) {
        if (name.startsWith("io.opentelemetry.")) {
          throw new ClassNotFoundException(name + " (hidden by the test)");
        }
        if (name.startsWith("io.tandem.core.")) {
          Class<?> c = findLoadedClass(name);
          if (c == null) {
            c = define(name);
          }
          return c;
        }
        return super.loadClass(name, resolve);
      }
    }

    private Class<?> define(String name) throws ClassNotFoundException {
      try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
        if (in == null) {
          throw new ClassNotFoundException(name);
        }
        byte[] bytes = in.readAllBytes();
        return defineClass(name, bytes, 0, bytes.length);
      } catch (IOException e) {
        throw new ClassNotFoundException(name, e);
      }
    }
  }
}
