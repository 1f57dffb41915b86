package io.tandem.examples.checkout;

import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Measurement probe (not a check): prints one checkout's spans as a per-hop timeline. */
@Tag("slow")
class CheckoutHopTimelineProbe {
  @Test
  void printOneCheckoutsHops() throws Exception {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    GlobalOpenTelemetry.resetForTest();
    OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .buildAndRegisterGlobal();
    boolean maria = !Boolean.getBoolean("probe.postgresPayment");
    try (CheckoutSystem system =
        CheckoutSystem.builder()
            .postgres(TestInfrastructure.postgres())
            .paymentDatabase(maria ? TestInfrastructure.mariadb() : TestInfrastructure.postgres())
            .kafka(TestInfrastructure.kafka())
            .stepTimeout(Duration.ofSeconds(20))
            .start()) {
      system.awaitReady(Duration.ofSeconds(60));
      system.inventory().addProduct("kite", 1000);
      for (int round = 0; round < 12; round++) {
        spans.reset();
        Span root = GlobalOpenTelemetry.getTracer("probe").spanBuilder("checkout").startSpan();
        long t0 = System.nanoTime();
        UUID saga;
        try (Scope s = root.makeCurrent()) {
          saga =
              system.checkout(
                  new Checkout(
                      "order-" + UUID.randomUUID(),
                      "c",
                      "kite",
                      1,
                      1250L,
                      "4242424242424242",
                      "1 Main"));
        } finally {
          root.end();
        }
        await()
            .pollInterval(Duration.ofMillis(1))
            .atMost(Duration.ofSeconds(60))
            .until(() -> system.sagas().find(saga).orElseThrow().status().terminal());
        double total = (System.nanoTime() - t0) / 1e6;
        Thread.sleep(300);
        if (round < 9) {
          System.out.printf(Locale.ROOT, "PROBE round %d: %.1f ms%n", round, total);
          continue;
        }
        long base =
            ((io.opentelemetry.sdk.trace.ReadableSpan) root).toSpanData().getStartEpochNanos();
        String trace = root.getSpanContext().getTraceId();
        List<SpanData> mine =
            spans.getFinishedSpanItems().stream()
                .filter(
                    sp ->
                        sp.getTraceId().equals(trace)
                            || sp.getLinks().stream()
                                .anyMatch(l -> l.getSpanContext().getTraceId().equals(trace)))
                .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos))
                .toList();
        System.out.printf(
            Locale.ROOT,
            "PROBE round %d: %.1f ms, payment on %s%n",
            round,
            total,
            maria ? "MariaDB" : "PostgreSQL");
        for (SpanData sp : mine) {
          System.out.printf(
              Locale.ROOT,
              "PROBE %8.1f ms .. %8.1f ms  %-8s %s %s%n",
              (sp.getStartEpochNanos() - base) / 1e6,
              (sp.getEndEpochNanos() - base) / 1e6,
              sp.getKind(),
              sp.getName(),
              sp.getAttributes().asMap().entrySet().stream()
                  .filter(
                      e ->
                          e.getKey().getKey().contains("group")
                              || e.getKey().getKey().contains("destination")
                              || e.getKey().getKey().contains("batch"))
                  .map(e -> e.getKey().getKey() + "=" + e.getValue())
                  .toList());
        }
      }
    } finally {
      GlobalOpenTelemetry.resetForTest();
    }
  }
}
