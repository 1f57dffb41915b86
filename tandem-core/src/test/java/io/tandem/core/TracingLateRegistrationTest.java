package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An application may register its SDK after Tandem's components started tracing. */
class TracingLateRegistrationTest {

  @AfterEach
  void reset() {
    GlobalOpenTelemetry.resetForTest();
  }

  @Test
  void anSdkRegisteredAfterTandemsFirstSpansIsUsed() {
    GlobalOpenTelemetry.resetForTest();
    Event event =
        Event.builder().aggregate("Order", "o-1", 1).eventType("OrderPlaced").payload("{}").build();
    try (Tracing.Span early = Tracing.get().startConsumer(event, "billing", null)) {
      early.outcome("APPLIED"); // before any SDK: a no-op span
    }
    assertThat(GlobalOpenTelemetry.isSet()).as("Tandem did not fix a global").isFalse();

    InMemorySpanExporter spans = InMemorySpanExporter.create();
    OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .buildAndRegisterGlobal();
    try (Tracing.Span late = Tracing.get().startConsumer(event, "billing", null)) {
      late.outcome("APPLIED");
    }
    assertThat(spans.getFinishedSpanItems())
        .extracting(SpanData::getName)
        .containsExactly("process Order");
  }
}
