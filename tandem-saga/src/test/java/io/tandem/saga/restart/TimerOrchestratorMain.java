package io.tandem.saga.restart;

import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaOrchestrator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * An orchestrator process for {@link SagaTimerRestartTest}: {@code start <url-file>} starts one
 * saga whose first step will never be answered, prints {@code STARTED <id>} and waits (to be
 * killed); {@code resume <url-file>} only runs the timer and prints {@code READY}. The JDBC URL is
 * read from a file, never taken from the command line.
 */
public final class TimerOrchestratorMain {
  public static final String STARTED = "STARTED ";
  public static final String READY = "READY";
  public static final Duration STEP_TIMEOUT = Duration.ofSeconds(4);

  /** The saga data. */
  public record Hold(String sku) {}

  private TimerOrchestratorMain() {}

  static SagaDefinition<Hold> definition() {
    return SagaDefinition.builder("hold", Hold.class)
        .compensatable("reserve", "inventory", "Reserve", "Release")
        .pivot("charge", "payment", "Charge")
        .stepTimeout(STEP_TIMEOUT)
        .forwardAttempts(1)
        .build();
  }

  static SagaOrchestrator orchestrator(String url) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(url);
    return SagaOrchestrator.builder()
        .dataSource(ds)
        .name("hold-orchestrator")
        .replyTo("hold-replies")
        .definition(definition())
        .timerInterval(Duration.ofMillis(100))
        .build();
  }

  public static void main(String[] args) throws Exception {
    String url = Files.readString(Path.of(args[1]), StandardCharsets.UTF_8).strip();
    SagaOrchestrator orchestrator = orchestrator(url);
    if (args[0].equals("start")) {
      UUID id = orchestrator.start("hold", new Hold("sku-1"));
      orchestrator.startTimer();
      System.out.println(STARTED + id);
    } else {
      orchestrator.startTimer();
      System.out.println(READY);
    }
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // until killed
  }
}
