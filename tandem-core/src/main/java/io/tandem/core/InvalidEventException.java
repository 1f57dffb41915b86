package io.tandem.core;

/**
 * An event was refused at construction, before anything was written. {@link #field()} names the
 * envelope field that was wrong (for example {@code payload} or {@code aggregate_id}); the message
 * says why and what to do.
 */
public final class InvalidEventException extends TandemException {
  private static final long serialVersionUID = 1L;
  private final String field;

  public InvalidEventException(String field, String reason) {
    super("invalid event: " + field + " " + reason);
    this.field = field;
  }

  /** The envelope field (snake_case, as in the outbox table) that was rejected. */
  public String field() {
    return field;
  }
}
