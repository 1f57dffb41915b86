package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Tracing on OpenTelemetry's API with the SDK's in-memory exporter. */
class TracingTest {
  static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
  static Tracer tracer;

  @BeforeAll
  static void sdk() {
    GlobalOpenTelemetry.resetForTest();
    OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(SPANS)).build())
        .buildAndRegisterGlobal();
    tracer = GlobalOpenTelemetry.getTracer("test");
  }

  @AfterAll
  static void reset() {
    GlobalOpenTelemetry.resetForTest();
  }

  @BeforeEach
  void clear() {
    SPANS.reset();
  }

  @Test
  void openTelemetryIsDetectedWhenItsApiIsOnTheClassPath() {
    assertThat(Tracing.get()).isNotSameAs(Tracing.NONE);
  }

  @Test
  void noContextWithoutACurrentSpan() {
    assertThat(Tracing.get().currentContext()).isEmpty();
  }

  @Test
  void theCurrentSpansTraceparentAndTracestateAreTheContext() {
    Span span = tracer.spanBuilder("checkout").startSpan();
    Span withState =
        Span.wrap(
            io.opentelemetry.api.trace.SpanContext.create(
                span.getSpanContext().getTraceId(),
                span.getSpanContext().getSpanId(),
                span.getSpanContext().getTraceFlags(),
                TraceState.builder().put("vendor", "abc").build()));
    try (Scope s = Context.current().with(withState).makeCurrent()) {
      assertThat(Tracing.get().currentContext())
          .containsEntry(
              EventHeaders.TRACEPARENT,
              "00-"
                  + span.getSpanContext().getTraceId()
                  + "-"
                  + span.getSpanContext().getSpanId()
                  + "-"
                  + span.getSpanContext().getTraceFlags().asHex())
          .containsEntry(EventHeaders.TRACESTATE, "vendor=abc");
    } finally {
      span.end();
    }
  }

  @Test
  void aConsumerSpanIsAChildOfTheEventsSpanAndCurrentUntilClosed() {
    Span producer = tracer.spanBuilder("checkout").startSpan();
    Event event;
    try (Scope s = producer.makeCurrent()) {
      event = event(EventHeaders.of(Tracing.get().currentContext()));
    } finally {
      producer.end();
    }
    String inside;
    try (Tracing.Span consumer =
        Tracing.get().startConsumer(event, "billing", "kafka tandem.Order[3]@17")) {
      inside = Span.current().getSpanContext().getSpanId();
      consumer.outcome("APPLIED");
    }
    assertThat(Span.current().getSpanContext().isValid()).as("restored after close").isFalse();

    SpanData span = spanNamed("process tandem.Order");
    assertThat(span.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(span.getTraceId()).isEqualTo(producer.getSpanContext().getTraceId());
    assertThat(span.getParentSpanId()).isEqualTo(producer.getSpanContext().getSpanId());
    assertThat(span.getSpanId()).isEqualTo(inside);
    assertThat(span.getAttributes().get(AttributeKey.stringKey("messaging.system")))
        .isEqualTo("kafka");
    assertThat(span.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")))
        .isEqualTo("tandem.Order");
    assertThat(span.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))
        .isEqualTo(event.eventId().toString());
    assertThat(span.getAttributes().get(AttributeKey.stringKey("messaging.consumer.group.name")))
        .isEqualTo("billing");
    assertThat(span.getAttributes().get(AttributeKey.stringKey("tandem.outcome")))
        .isEqualTo("APPLIED");
  }

  @Test
  void anEventWithoutTraceContextStartsARootSpan() {
    try (Tracing.Span consumer =
        Tracing.get().startConsumer(event(EventHeaders.EMPTY), "c", null)) {
      consumer.outcome("APPLIED");
    }
    SpanData span = spanNamed("process Order");
    assertThat(span.getParentSpanContext().isValid()).isFalse();
    assertThat(span.getAttributes().get(AttributeKey.stringKey("messaging.system")))
        .isEqualTo("tandem");
  }

  @Test
  void aBatchSpanLinksEveryEventsSpan() {
    Span a = tracer.spanBuilder("a").startSpan();
    Span b = tracer.spanBuilder("b").startSpan();
    Event ea = event(headersOf(a));
    Event eb = event(headersOf(b));
    a.end();
    b.end();
    try (Tracing.Span batch =
        Tracing.get().startBatch("publish kafka", List.of(ea, eb, event(EventHeaders.EMPTY)))) {
      batch.outcome("3 of 3 acknowledged");
    }
    SpanData span = spanNamed("publish kafka");
    assertThat(span.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(span.getLinks())
        .extracting(l -> l.getSpanContext().getSpanId())
        .containsExactly(a.getSpanContext().getSpanId(), b.getSpanContext().getSpanId());
  }

  @Test
  void theNoOpTracingDoesNothing() {
    Span span = tracer.spanBuilder("checkout").startSpan();
    try (Scope s = span.makeCurrent();
        Tracing.Span consumer = Tracing.NONE.startConsumer(event(EventHeaders.EMPTY), "c", null)) {
      assertThat(Tracing.NONE.currentContext()).isEmpty();
      assertThat(Span.current()).isSameAs(span);
      consumer.outcome("APPLIED");
    } finally {
      span.end();
    }
    assertThat(SPANS.getFinishedSpanItems()).extracting(SpanData::getName).containsOnly("checkout");
  }

  private static EventHeaders headersOf(Span span) {
    try (Scope s = span.makeCurrent()) {
      return EventHeaders.of(Tracing.get().currentContext());
    }
  }

  private static Event event(EventHeaders headers) {
    return Event.builder()
        .aggregate("Order", "o-1", 1)
        .eventType("OrderPlaced")
        .payload("{}")
        .headers(headers)
        .build();
  }

  private static SpanData spanNamed(String name) {
    return SPANS.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no span " + name + " in " + SPANS.getFinishedSpanItems()));
  }
}
