package io.tandem.core.internal;

import io.tandem.core.ErrorSummary;
import io.tandem.core.Event;
import io.tandem.core.Tracing;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Picks the {@link Tracing} implementation. {@link OpenTelemetryTracing} is the only class that
 * names OpenTelemetry types; it is loaded by name, and only after the API was found, so that
 * without OpenTelemetry on the class path no class of Tandem fails to link.
 */
public final class TracingLoader {
  /** The class whose presence means OpenTelemetry's API is there. */
  static final String PROBE = "io.opentelemetry.api.trace.Span";

  public static final Tracing NONE = new NoTracing();

  public static final Tracing DETECTED = detect(TracingLoader.class.getClassLoader());

  private TracingLoader() {}

  /** OpenTelemetry's tracing when {@code loader} sees its API, else {@link #NONE}. */
  public static Tracing detect(ClassLoader loader) {
    try {
      Class.forName(PROBE, false, loader);
    } catch (ClassNotFoundException | LinkageError absent) {
      return NONE;
    }
    try {
      // used at every span: an older API without it would fail in the middle of a consumer's work
      Class.forName("io.opentelemetry.api.GlobalOpenTelemetry", false, loader)
          .getMethod("getOrNoop");
      return (Tracing)
          Class.forName(
                  TracingLoader.class.getPackageName() + ".OpenTelemetryTracing", true, loader)
              .getDeclaredConstructor()
              .newInstance();
    } catch (ReflectiveOperationException | LinkageError unusable) {
      LoggerFactory.getLogger(TracingLoader.class)
          .warn(
              "OpenTelemetry's API is on the class path but cannot be used ({}); events are not"
                  + " traced: use an opentelemetry-api with GlobalOpenTelemetry.getOrNoop() (1.68.0"
                  + " tested)",
              ErrorSummary.of(unusable));
      return NONE;
    }
  }

  private static final class NoTracing implements Tracing {
    private static final Span NO_SPAN =
        new Span() {
          @Override
          public void outcome(String outcome) {}

          @Override
          public void failed(Throwable failure) {}

          @Override
          public void close() {}
        };

    @Override
    public Map<String, String> currentContext() {
      return Map.of();
    }

    @Override
    public Span startConsumer(Event event, String consumer, String origin) {
      return NO_SPAN;
    }

    @Override
    public Span startBatch(String name, List<Event> events) {
      return NO_SPAN;
    }

    @Override
    public String toString() {
      return "Tracing.NONE";
    }
  }
}
