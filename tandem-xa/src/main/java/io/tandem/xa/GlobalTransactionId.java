package io.tandem.xa;

import io.tandem.core.EventId;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The id of one Tandem two-phase transaction: the coordinator's node id and a UUIDv7, written
 * {@code node/uuid} (for example {@code billing-1/0190f3c2-8d1e-7a3b-9c4d-5e6f7a8b9c0d}). It is the
 * XA global transaction id (gtrid) of every branch of the transaction, so a recovery can tell
 * Tandem's transactions, and its own node's, from everyone else's. The UUIDv7 carries the time the
 * transaction began.
 *
 * <p>Immutable and thread-safe.
 *
 * @param nodeId the coordinator's node id ({@link XaSettings#nodeId()})
 * @param uuid a version 7 UUID, unique per transaction (anything else is refused)
 */
public record GlobalTransactionId(String nodeId, UUID uuid) {
  /** The most characters a node id may have: the gtrid must fit MySQL's and MariaDB's 64 bytes. */
  public static final int MAX_NODE_ID_LENGTH = 27;

  private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,26}");

  public GlobalTransactionId {
    checkNodeId(nodeId, "nodeId");
    Objects.requireNonNull(uuid, "uuid");
    if (!EventId.isVersion7(uuid)) {
      throw new IllegalArgumentException(
          "'"
              + uuid
              + "' is not a version 7 UUID: Tandem's transaction ids carry their begin time");
    }
  }

  /** A new id for {@code nodeId}, from the shared UUIDv7 generator. */
  public static GlobalTransactionId next(String nodeId) {
    return new GlobalTransactionId(nodeId, EventId.next());
  }

  /**
   * Parses {@code node/uuid}, as {@link #toString()} writes it.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static GlobalTransactionId parse(String text) {
    Objects.requireNonNull(text, "text");
    int slash = text.indexOf('/');
    if (slash < 1 || slash != text.lastIndexOf('/')) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a Tandem transaction id: expected NODE/UUID, for example"
              + " billing-1/0190f3c2-8d1e-7a3b-9c4d-5e6f7a8b9c0d (tandem xa status lists them)");
    }
    UUID uuid;
    try {
      uuid = UUID.fromString(text.substring(slash + 1));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a Tandem transaction id: '"
              + text.substring(slash + 1)
              + "' is not a UUID",
          e);
    }
    return new GlobalTransactionId(text.substring(0, slash), uuid);
  }

  /**
   * Checks a node id: 1 to {@value #MAX_NODE_ID_LENGTH} characters, letters, digits, {@code .},
   * {@code _} and {@code -}, starting with a letter or digit.
   *
   * @throws IllegalArgumentException naming {@code parameter} and the bad value
   */
  public static String checkNodeId(String nodeId, String parameter) {
    if (nodeId == null || !NODE_ID.matcher(nodeId).matches()) {
      throw new IllegalArgumentException(
          parameter
              + " must be 1 to "
              + MAX_NODE_ID_LENGTH
              + " letters, digits, '.', '_' or '-' (starting with a letter or digit), was '"
              + nodeId
              + "': it goes into every XA transaction id, which MySQL and MariaDB limit to 64"
              + " bytes");
    }
    return nodeId;
  }

  /** When the transaction began, from its UUIDv7. */
  public Instant beganAt() {
    return EventId.timestampOf(uuid);
  }

  @Override
  public String toString() {
    return nodeId + "/" + uuid;
  }
}
