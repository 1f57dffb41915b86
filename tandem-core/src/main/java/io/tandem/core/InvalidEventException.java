package io.tandem.core;

import java.util.Optional;

/**
 * An event was refused at construction, before anything was written. {@link #field()} names the
 * envelope field that was wrong (for example {@code payload} or {@code aggregate_id}), {@link
 * #rule()} the rule it broke; the message says why and what to do.
 */
public final class InvalidEventException extends TandemException {
  private static final long serialVersionUID = 1L;
  private final String field;
  private final EventRule rule;

  /** Refused by {@code rule} of the envelope. */
  public InvalidEventException(EventRule rule, String field, String reason) {
    super("invalid event: " + field + " " + reason);
    this.field = field;
    this.rule = rule;
  }

  /** Refused for a reason outside the envelope's rules (a message that cannot be decoded). */
  public InvalidEventException(String field, String reason) {
    this(null, field, reason);
  }

  /** The envelope field (snake_case, as in the outbox table) that was rejected. */
  public String field() {
    return field;
  }

  /** The rule of the envelope the field broke; empty when the refusal came from elsewhere. */
  public Optional<EventRule> rule() {
    return Optional.ofNullable(rule);
  }
}
