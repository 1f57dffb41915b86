package io.tandem.core;

import io.tandem.core.internal.TracingLoader;
import java.util.List;
import java.util.Map;

/**
 * Where Tandem meets distributed tracing: it reads the trace context of the span current when an
 * event is appended, and continues that trace when the event is consumed. The only implementation
 * that traces is OpenTelemetry's, used when {@code io.opentelemetry:opentelemetry-api} is on the
 * class path (an optional dependency) and an SDK is registered as {@code GlobalOpenTelemetry};
 * otherwise {@link #NONE} does nothing and Tandem works the same.
 *
 * <pre>{@code
 * // with the OpenTelemetry SDK configured (agent, autoconfigure or buildAndRegisterGlobal()):
 * Span span = tracer.spanBuilder("checkout").startSpan();
 * try (Scope s = span.makeCurrent()) {
 *   outbox.append(conn, event); // the row's headers hold the span's traceparent and tracestate
 * }
 * // a ConsumerRunner / InboxProcessor, a SagaParticipant or a SagaOrchestrator that applies the
 * // event starts a CONSUMER span whose parent is that span, current while its handler runs
 * }</pre>
 *
 * <p>{@link #get()} is detected once per class loader. Implementations are thread-safe.
 */
public interface Tracing {

  /** Tracing switched off: no context read, no span started. */
  Tracing NONE = TracingLoader.NONE;

  /**
   * The process's tracing: OpenTelemetry's when its API is on the class path, else {@link #NONE}.
   */
  static Tracing get() {
    return TracingLoader.DETECTED;
  }

  /**
   * The W3C trace context of the span current on this thread ({@code traceparent}, and {@code
   * tracestate} when it has one), as event header names and values; empty when no valid span is
   * current.
   */
  Map<String, String> currentContext();

  /**
   * Starts a CONSUMER span for applying {@code event}, with the event's {@code traceparent} as its
   * parent (a root span when it has none), and makes it current until {@link Span#close()}, so that
   * events the handler appends continue the trace.
   *
   * @param consumer the consumer (inbox) name applying it
   * @param origin where the message came from ({@code InboundMessage.origin()}), or null
   */
  Span startConsumer(Event event, String consumer, String origin);

  /**
   * Starts a span for work on several events at once (a relay batch): a new root span with one link
   * per event that carries a trace context, current until {@link Span#close()}.
   *
   * @param name the span's name, e.g. {@code "publish tandem_outbox"}
   */
  Span startBatch(String name, List<Event> events);

  /** A started span; close it on the thread that started it. */
  interface Span extends AutoCloseable {
    /** Records how the work ended, as the attribute {@code tandem.outcome}. */
    void outcome(String outcome);

    /** Records a failure: the span's status becomes ERROR, described by {@link ErrorSummary}. */
    void failed(Throwable failure);

    /** Ends the span and restores the context that was current before it. */
    @Override
    void close();
  }
}
