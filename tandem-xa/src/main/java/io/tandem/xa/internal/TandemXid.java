package io.tandem.xa.internal;

import io.tandem.xa.GlobalTransactionId;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.transaction.xa.Xid;

/**
 * The xid of one branch of a Tandem transaction: Tandem's format id, the global id {@code
 * node/uuid} as ASCII, and the participant's name as the branch qualifier. Both parts are checked
 * against the XA limit of 64 bytes (MariaDB's driver reports an over-long gtrid as a syntax error
 * only).
 */
public final class TandemXid implements Xid {
  /** Tandem's XA format id: the ASCII bytes of "TDM1". */
  public static final int FORMAT_ID = 0x54444D31;

  private static final Pattern PARTICIPANT = Pattern.compile("[a-z0-9][a-z0-9_-]{0,31}");

  private final GlobalTransactionId global;
  private final String participant;
  private final byte[] gtrid;
  private final byte[] bqual;

  public TandemXid(GlobalTransactionId global, String participant) {
    this.global = global;
    this.participant = checkParticipant(participant, "participant");
    this.gtrid = global.toString().getBytes(StandardCharsets.US_ASCII);
    this.bqual = participant.getBytes(StandardCharsets.US_ASCII);
    if (gtrid.length > MAXGTRIDSIZE) {
      throw new IllegalArgumentException(
          "the global transaction id " + global + " is longer than " + MAXGTRIDSIZE + " bytes");
    }
  }

  /**
   * Checks a participant name: 1 to 32 lower-case letters, digits, {@code _} or {@code -}, starting
   * with a letter or digit. It is the branch qualifier of the participant's xids.
   */
  public static String checkParticipant(String name, String parameter) {
    if (name == null || !PARTICIPANT.matcher(name).matches()) {
      throw new IllegalArgumentException(
          parameter
              + " must be 1 to 32 lower-case letters, digits, '_' or '-' (starting with a letter or"
              + " digit), was '"
              + name
              + "': it is the branch qualifier of the participant's XA transaction ids");
    }
    return name;
  }

  /** Tandem's reading of a foreign xid: empty when it is not one of Tandem's. */
  public static Optional<TandemXid> from(Xid xid) {
    return from(xid.getFormatId(), xid.getGlobalTransactionId(), xid.getBranchQualifier());
  }

  /** Tandem's reading of an xid given by its parts: empty when it is not one of Tandem's. */
  public static Optional<TandemXid> from(int formatId, byte[] gtrid, byte[] bqual) {
    if (formatId != FORMAT_ID || gtrid == null || bqual == null) {
      return Optional.empty();
    }
    try {
      String g = new String(gtrid, StandardCharsets.US_ASCII);
      String b = new String(bqual, StandardCharsets.US_ASCII);
      TandemXid xid = new TandemXid(GlobalTransactionId.parse(g), b);
      return Arrays.equals(xid.gtrid, gtrid) && Arrays.equals(xid.bqual, bqual)
          ? Optional.of(xid)
          : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // Tandem's format id, but not Tandem's shape: not ours to touch
    }
  }

  /**
   * Reads a PostgreSQL prepared transaction's gid as the PostgreSQL driver writes an xid ({@code
   * formatId_base64(gtrid)_base64(bqual)}); empty when it is not one of Tandem's.
   */
  public static Optional<TandemXid> fromPostgresGid(String gid) {
    String[] parts = gid.split("_", -1);
    if (parts.length != 3) {
      return Optional.empty();
    }
    try {
      return from(
          Integer.parseInt(parts[0]),
          Base64.getDecoder().decode(parts[1]),
          Base64.getDecoder().decode(parts[2]));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The gid PostgreSQL stores for this xid (the PostgreSQL driver's encoding). */
  public String postgresGid() {
    Base64.Encoder b64 = Base64.getEncoder();
    return FORMAT_ID + "_" + b64.encodeToString(gtrid) + "_" + b64.encodeToString(bqual);
  }

  public GlobalTransactionId global() {
    return global;
  }

  public String participant() {
    return participant;
  }

  @Override
  public int getFormatId() {
    return FORMAT_ID;
  }

  @Override
  public byte[] getGlobalTransactionId() {
    return gtrid.clone();
  }

  @Override
  public byte[] getBranchQualifier() {
    return bqual.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TandemXid x && x.global.equals(global) && x.participant.equals(participant);
  }

  @Override
  public int hashCode() {
    return global.hashCode() * 31 + participant.hashCode();
  }

  @Override
  public String toString() {
    return global + ":" + participant;
  }
}
