package io.tandem.core.internal;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.tandem.core.ErrorSummary;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.Tracing;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link Tracing} on OpenTelemetry's API: W3C trace context in and out of event headers, spans from
 * {@code GlobalOpenTelemetry}'s tracer (a no-op until an SDK is registered). The only class of
 * Tandem that names OpenTelemetry types; {@link TracingLoader} loads it only when they exist.
 * Attribute names follow OpenTelemetry's messaging semantic conventions.
 */
final class OpenTelemetryTracing implements Tracing {
  static final String SCOPE = "io.tandem";
  private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
  private static final TextMapSetter<Map<String, String>> SET = Map::put;
  private static final TextMapGetter<Map<String, String>> GET =
      new TextMapGetter<>() {
        @Override
        @SuppressWarnings("deprecation") // a default method now; abstract in older 1.x APIs
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };

  private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  private static final AttributeKey<String> DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  private static final AttributeKey<String> MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");
  private static final AttributeKey<String> OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  private static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("messaging.operation.name");
  private static final AttributeKey<String> CONSUMER_GROUP =
      AttributeKey.stringKey("messaging.consumer.group.name");
  private static final AttributeKey<Long> BATCH_COUNT =
      AttributeKey.longKey("messaging.batch.message_count");
  private static final AttributeKey<String> AGGREGATE_TYPE =
      AttributeKey.stringKey("tandem.aggregate.type");
  private static final AttributeKey<String> AGGREGATE_ID =
      AttributeKey.stringKey("tandem.aggregate.id");
  private static final AttributeKey<Long> AGGREGATE_VERSION =
      AttributeKey.longKey("tandem.aggregate.version");
  private static final AttributeKey<String> EVENT_TYPE =
      AttributeKey.stringKey("tandem.event.type");
  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("tandem.outcome");

  private static Tracer tracer() {
    // Looked up each time, so an SDK registered later is used; and never through get(), which
    // would fix a no-op as the global and make the application's later registration fail.
    return GlobalOpenTelemetry.getOrNoop().getTracer(SCOPE);
  }

  @Override
  public Map<String, String> currentContext() {
    Context current = Context.current();
    if (!io.opentelemetry.api.trace.Span.fromContext(current).getSpanContext().isValid()) {
      return Map.of();
    }
    Map<String, String> headers = new LinkedHashMap<>();
    W3C.inject(current, headers, SET);
    return headers;
  }

  @Override
  public Tracing.Span startConsumer(Event event, String consumer, String origin) {
    Origin from = Origin.parse(origin, event.aggregateType());
    SpanBuilder span =
        tracer()
            .spanBuilder("process " + from.destination())
            .setSpanKind(SpanKind.CONSUMER)
            .setParent(W3C.extract(Context.root(), traceContext(event), GET))
            .setAttribute(SYSTEM, from.system())
            .setAttribute(DESTINATION, from.destination())
            .setAttribute(OPERATION_TYPE, "process")
            .setAttribute(OPERATION_NAME, "process")
            .setAttribute(MESSAGE_ID, event.eventId().toString())
            .setAttribute(CONSUMER_GROUP, consumer)
            .setAttribute(AGGREGATE_TYPE, event.aggregateType())
            .setAttribute(AGGREGATE_ID, event.aggregateId())
            .setAttribute(AGGREGATE_VERSION, event.aggregateVersion())
            .setAttribute(EVENT_TYPE, event.eventType());
    return new Started(span.startSpan());
  }

  @Override
  public Tracing.Span startBatch(String name, List<Event> events) {
    SpanBuilder span =
        tracer()
            .spanBuilder(name)
            .setSpanKind(SpanKind.PRODUCER)
            .setNoParent()
            .setAttribute(SYSTEM, "tandem")
            .setAttribute(OPERATION_TYPE, "send")
            .setAttribute(OPERATION_NAME, "publish")
            .setAttribute(BATCH_COUNT, (long) events.size());
    for (Event e : events) {
      SpanContext linked =
          io.opentelemetry.api.trace.Span.fromContext(
                  W3C.extract(Context.root(), traceContext(e), GET))
              .getSpanContext();
      if (linked.isValid()) {
        span.addLink(linked);
      }
    }
    return new Started(span.startSpan());
  }

  private static Map<String, String> traceContext(Event event) {
    Map<String, String> carrier = new LinkedHashMap<>(2);
    event.headers().traceparent().ifPresent(v -> carrier.put(EventHeaders.TRACEPARENT, v));
    event.headers().tracestate().ifPresent(v -> carrier.put(EventHeaders.TRACESTATE, v));
    return carrier;
  }

  /** The messaging system and destination named by {@code InboundMessage.origin()}. */
  record Origin(String system, String destination) {
    static Origin parse(String origin, String fallbackDestination) {
      String[] words = origin == null ? new String[0] : origin.trim().split(" ", 3);
      if (words.length < 2 || words[0].isEmpty()) {
        return new Origin("tandem", fallbackDestination);
      }
      String destination = words[1];
      int end = indexOfAny(destination, "[#");
      return new Origin(words[0], end > 0 ? destination.substring(0, end) : destination);
    }

    private static int indexOfAny(String text, String chars) {
      for (int i = 0; i < text.length(); i++) {
        if (chars.indexOf(text.charAt(i)) >= 0) {
          return i;
        }
      }
      return -1;
    }
  }

  private static final class Started implements Tracing.Span {
    private final io.opentelemetry.api.trace.Span span;
    private final Scope scope;

    Started(io.opentelemetry.api.trace.Span span) {
      this.span = span;
      this.scope = span.makeCurrent();
    }

    @Override
    public void outcome(String outcome) {
      span.setAttribute(OUTCOME, outcome);
    }

    @Override
    public void failed(Throwable failure) {
      // the summary, not recordException: a stack trace and raw message may hold payload data
      span.setStatus(StatusCode.ERROR, ErrorSummary.of(failure));
    }

    @Override
    public void close() {
      scope.close();
      span.end();
    }
  }
}
