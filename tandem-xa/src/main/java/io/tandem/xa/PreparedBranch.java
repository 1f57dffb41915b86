package io.tandem.xa;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One prepared (in-doubt) transaction branch as a participant database lists it: Tandem's or
 * foreign, with its age, the decision Tandem's log holds for it and the locks it holds where the
 * database tells.
 *
 * @param participant the participant's name
 * @param xid the branch as text: {@code node/uuid:participant} for Tandem's; for a foreign one the
 *     PostgreSQL gid, or {@code formatId:gtrid:bqual} from MariaDB's {@code XA RECOVER} (hex where
 *     not printable)
 * @param global Tandem's global transaction id; empty for a foreign branch
 * @param preparedAt when it was prepared (PostgreSQL); for a Tandem branch on MariaDB, which does
 *     not tell, when its transaction began; empty for a foreign MariaDB branch
 * @param owner the database user that prepared it, where the database tells
 * @param decision the decision Tandem's log holds for its transaction; empty: none (presumed abort)
 * @param locks the locks it holds, one line each, where the database tells (PostgreSQL: table
 *     locks; MariaDB: InnoDB row and table counts when they can be tied to this branch)
 * @param blockedSessions how many sessions wait for it, or -1 when the database does not say
 */
public record PreparedBranch(
    String participant,
    String xid,
    Optional<GlobalTransactionId> global,
    Optional<Instant> preparedAt,
    Optional<String> owner,
    Optional<XaDecision> decision,
    List<String> locks,
    int blockedSessions) {

  public PreparedBranch {
    locks = List.copyOf(locks);
  }

  /** Whether the branch is not Tandem's (Tandem never touches it). */
  public boolean foreign() {
    return global.isEmpty();
  }

  /** The coordinator node that owns it; empty for a foreign branch. */
  public Optional<String> node() {
    return global.map(GlobalTransactionId::nodeId);
  }

  /**
   * How long it has been prepared (or, see {@link #preparedAt()}, its transaction ran) at {@code
   * now}.
   */
  public Optional<Duration> age(Instant now) {
    return preparedAt
        .map(p -> Duration.between(p, now))
        .map(d -> d.isNegative() ? Duration.ZERO : d);
  }
}
