package io.tandem.examples.checkout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.tandem.saga.SagaInstance;
import io.tandem.saga.SagaStatus;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One checkout traced through the five services on Kafka: the orchestrator and the order, payment,
 * inventory and shipping services continue the trace of the span that started the checkout.
 */
class CheckoutTracingTest {
  static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
  static final AttributeKey<String> GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
  static CheckoutSystem system;

  @BeforeAll
  static void start() throws Exception {
    GlobalOpenTelemetry.resetForTest();
    OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(SPANS)).build())
        .buildAndRegisterGlobal();
    system =
        CheckoutSystem.builder()
            .postgres(TestInfrastructure.postgres())
            .paymentDatabase(TestInfrastructure.postgres())
            .kafka(TestInfrastructure.kafka())
            .topicPrefix("traced")
            .stepTimeout(Duration.ofSeconds(20))
            .start();
    assertThat(system.awaitReady(Duration.ofSeconds(60))).isTrue();
  }

  @AfterAll
  static void stop() {
    if (system != null) {
      system.close();
    }
    GlobalOpenTelemetry.resetForTest();
  }

  @Test
  void oneCheckoutsSpansFormOneTraceAcrossTheFiveServices() throws Exception {
    system.inventory().addProduct("kite", 3);
    Span root = GlobalOpenTelemetry.getTracer("test").spanBuilder("checkout").startSpan();
    UUID saga;
    try (Scope s = root.makeCurrent()) {
      saga =
          system.checkout(
              new Checkout(
                  "order-" + UUID.randomUUID(),
                  "customer-1",
                  "kite",
                  1,
                  1250L,
                  "4242424242424242",
                  "1 Main Street"));
    } finally {
      root.end();
    }
    SagaInstance ended =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> system.sagas().find(saga).orElseThrow(), i -> i.status().terminal());
    assertThat(ended.status()).isEqualTo(SagaStatus.COMPLETED);
    String traceId = root.getSpanContext().getTraceId();
    // five steps: five commands and five replies, each applied under a CONSUMER span
    await().atMost(Duration.ofSeconds(20)).until(() -> consumerSpans(traceId).size() >= 10);

    List<SpanData> spans = consumerSpans(traceId);
    assertThat(spans.stream().map(s -> s.getAttributes().get(GROUP)).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder(
            CheckoutOrchestrator.NAME,
            CheckoutSaga.ORDER,
            CheckoutSaga.PAYMENT,
            CheckoutSaga.INVENTORY,
            CheckoutSaga.SHIPPING);
    assertThat(spans)
        .extracting(s -> s.getAttributes().get(AttributeKey.stringKey("messaging.system")))
        .containsOnly("kafka");
    Set<String> ids =
        spans.stream().map(SpanData::getSpanId).collect(Collectors.toCollection(HashSet::new));
    ids.add(root.getSpanContext().getSpanId());
    assertThat(spans)
        .as("every span's parent is the root or another step's span: one connected trace")
        .allSatisfy(s -> assertThat(ids).contains(s.getParentSpanId()));
    assertThat(
            SPANS.getFinishedSpanItems().stream()
                .filter(s -> s.getKind() == SpanKind.PRODUCER)
                .flatMap(s -> s.getLinks().stream())
                .filter(l -> l.getSpanContext().getTraceId().equals(traceId)))
        .as("the relays' publish spans link the checkout's trace")
        .isNotEmpty();
  }

  private static List<SpanData> consumerSpans(String traceId) {
    return SPANS.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == SpanKind.CONSUMER && s.getTraceId().equals(traceId))
        .toList();
  }
}
