package io.tandem.redis;

import io.tandem.core.TandemException;

/**
 * A Redis stream entry does not carry a valid CloudEvent with Tandem's envelope: a required field
 * is missing or malformed, or the envelope it carries fails {@link io.tandem.core.Event}'s
 * validation (then the {@link io.tandem.core.InvalidEventException} is the {@linkplain #getCause()
 * cause}).
 *
 * <p>The message names the CloudEvents attribute, its field and, when known, the entry: {@code
 * invalid Redis stream entry 1717171717171-0: attribute 'id' is missing (field ce_id)}.
 */
public final class InvalidStreamEntryException extends TandemException {
  private static final long serialVersionUID = 1L;
  private final String attribute;
  private final String entryId;

  /**
   * @param attribute the CloudEvents attribute that is wrong
   * @param reason what is wrong with it, completing "attribute 'x' ..."
   * @param entryId the entry's id, or null when decoding a bare field map
   */
  public InvalidStreamEntryException(
      String attribute, String reason, String entryId, Throwable cause) {
    super(
        "invalid Redis stream entry"
            + (entryId == null ? "" : " " + entryId)
            + ": attribute '"
            + attribute
            + "' "
            + reason,
        cause);
    this.attribute = attribute;
    this.entryId = entryId;
  }

  /** The CloudEvents attribute that was missing or invalid, e.g. {@code id} or {@code data}. */
  public String attribute() {
    return attribute;
  }

  /** The stream entry id, e.g. {@code 1717171717171-0}; null when not known. */
  public String entryId() {
    return entryId;
  }
}
