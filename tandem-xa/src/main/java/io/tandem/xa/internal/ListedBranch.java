package io.tandem.xa.internal;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A prepared branch as a participant's database lists it, before the decision log is consulted.
 *
 * @param xidText the branch as text (Tandem's form, or the database's own for a foreign one)
 * @param tandem Tandem's reading of its xid; empty when foreign
 * @param preparedAt when it was prepared, where the database tells
 * @param owner the user that prepared it, where the database tells
 * @param locks the locks it holds, where the database ties them to the branch
 * @param blocked sessions waiting for it, or -1 when unknown
 */
public record ListedBranch(
    String xidText,
    Optional<TandemXid> tandem,
    Optional<Instant> preparedAt,
    Optional<String> owner,
    List<String> locks,
    int blocked) {

  public ListedBranch {
    locks = List.copyOf(locks);
  }
}
