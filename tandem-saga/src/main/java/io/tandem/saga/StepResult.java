package io.tandem.saga;

import io.tandem.core.json.Json;
import java.util.Map;

/**
 * What a participant's command handler answers: success, with optional fields the orchestrator
 * merges into the saga data, or a business failure with a reason (which makes the orchestrator
 * compensate, or retry a retriable step). An exception thrown by a handler is not a failure reply:
 * the transaction rolls back and the command is retried by the participant's inbox processor.
 */
public final class StepResult {
  private final boolean succeeded;
  private final String payload;

  private StepResult(boolean succeeded, String payload) {
    this.succeeded = succeeded;
    this.payload = payload;
  }

  public static StepResult success() {
    return new StepResult(true, "{}");
  }

  /** Success; {@code fields} (JSON-serialisable values) are merged into the saga data. */
  public static StepResult success(Map<String, ?> fields) {
    return new StepResult(true, Json.write(fields));
  }

  public static StepResult failure(String reason) {
    return new StepResult(false, Json.write(Map.of("reason", reason)));
  }

  public boolean succeeded() {
    return succeeded;
  }

  /** The reply's JSON payload. */
  public String payload() {
    return payload;
  }

  @Override
  public String toString() {
    return (succeeded ? "success " : "failure ") + payload;
  }
}
