package io.tandem.xa;

import java.util.Optional;

/**
 * How one participant answered the status query.
 *
 * @param name the participant's name
 * @param database the database family and version, e.g. {@code PostgreSQL 15.20}; empty when it
 *     could not be reached
 * @param error why it could not be listed; empty when it was
 * @param note what the database could not tell, e.g. MariaDB locks that cannot be tied to a branch
 */
public record ParticipantStatus(
    String name, Optional<String> database, Optional<String> error, Optional<String> note) {

  /** Whether its prepared branches were listed. */
  public boolean reachable() {
    return error.isEmpty();
  }
}
