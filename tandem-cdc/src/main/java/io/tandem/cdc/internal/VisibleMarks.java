package io.tandem.cdc.internal;

/**
 * Marks a round's acknowledged rows published, and marks again while some of them matched nothing.
 * PostgreSQL streams a transaction's changes a moment before its commit is visible to other
 * sessions, so a fast relay can publish a row and run its mark before the row can be seen: the
 * mark's {@code UPDATE ... WHERE published_at IS NULL} then updates fewer rows than it was given,
 * and without another try the row would stay pending (shown as a backlog, published again at the
 * next start). Marking is idempotent, so trying again is safe; rows some other writer marked
 * meanwhile (the start-up drain) never match, which is why the tries are bounded.
 *
 * <p>Stateless; thread-safe.
 */
public final class VisibleMarks {
  /** Tries in all: the first, then after 10, 20, 40, 80 and 160 ms (310 ms at the most). */
  public static final int ATTEMPTS = 6;

  private static final long FIRST_WAIT_MS = 10;

  /** One mark statement over the round's rows; returns how many rows it updated. */
  @FunctionalInterface
  public interface Mark {
    int once();
  }

  /** Waits between tries; {@code Thread::sleep} outside tests. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  private VisibleMarks() {}

  /**
   * Runs {@code mark} until {@code expected} rows were updated in all or {@link #ATTEMPTS} tries
   * were made.
   *
   * @return the rows updated in all (less than {@code expected} when some never matched)
   */
  public static int markAll(Mark mark, int expected, Sleeper sleeper) {
    int marked = mark.once();
    long wait = FIRST_WAIT_MS;
    for (int attempt = 1; marked < expected && attempt < ATTEMPTS; attempt++) {
      try {
        sleeper.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return marked;
      }
      wait *= 2;
      marked += mark.once();
    }
    return marked;
  }
}
