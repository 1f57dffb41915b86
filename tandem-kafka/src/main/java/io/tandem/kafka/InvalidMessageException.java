package io.tandem.kafka;

import io.tandem.core.TandemException;

/**
 * A Kafka record is not a valid binary-mode CloudEvent carrying Tandem's envelope: a required
 * attribute is missing or malformed, or the envelope it carries fails {@link
 * io.tandem.core.Event}'s validation (then the {@link io.tandem.core.InvalidEventException} is the
 * {@linkplain #getCause() cause}).
 *
 * <p>The message names the attribute (CloudEvents name, for example {@code id}, {@code sequence},
 * {@code data}) and where the record is: {@code invalid message at topic tandem.order partition 2
 * offset 17: attribute 'id' is missing (header ce_id)}.
 */
public final class InvalidMessageException extends TandemException {
  private static final long serialVersionUID = 1L;
  private final String attribute;
  private final String topic;
  private final int partition;
  private final long offset;

  /**
   * @param attribute the CloudEvents attribute that is wrong
   * @param reason what is wrong with it, completing "attribute 'x' ..."
   */
  public InvalidMessageException(
      String attribute, String reason, String topic, int partition, long offset, Throwable cause) {
    super(
        "invalid message at topic "
            + topic
            + " partition "
            + partition
            + " offset "
            + offset
            + ": attribute '"
            + attribute
            + "' "
            + reason,
        cause);
    this.attribute = attribute;
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
  }

  /** The CloudEvents attribute that was missing or invalid, e.g. {@code id} or {@code data}. */
  public String attribute() {
    return attribute;
  }

  public String topic() {
    return topic;
  }

  public int partition() {
    return partition;
  }

  public long offset() {
    return offset;
  }
}
