package io.tandem.saga.internal;

import io.tandem.core.Event;
import io.tandem.core.TandemException;
import java.util.UUID;

/** Header names that tie commands and replies to a saga instance and one of its steps. */
public final class SagaHeaders {
  public static final String SAGA_ID = "sagaid";
  public static final String SAGA_TYPE = "sagatype";
  public static final String STEP = "sagastep";
  public static final String KIND = "sagakind";
  public static final String ATTEMPT = "sagaattempt";
  public static final String REPLY_TO = "sagareplyto";
  public static final String COMMAND_ID = "sagacommand";

  /** Forward command. */
  public static final String FORWARD = "F";

  /** Compensation command. */
  public static final String COMPENSATION = "C";

  /** Reply event types. */
  public static final String SUCCEEDED = "SagaStepSucceeded";

  public static final String FAILED = "SagaStepFailed";

  private SagaHeaders() {}

  public static String required(Event e, String name) {
    return e.headers()
        .get(name)
        .orElseThrow(
            () ->
                new TandemException(
                    "event "
                        + e.eventId()
                        + " ("
                        + e.eventType()
                        + ") has no '"
                        + name
                        + "' header: it is not a saga command or reply"));
  }

  public static UUID sagaId(Event e) {
    return UUID.fromString(required(e, SAGA_ID));
  }

  public static int attempt(Event e) {
    return Integer.parseInt(required(e, ATTEMPT));
  }
}
