package io.tandem.testkit.internal;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs registered cleanup actions once, at JVM exit, newest first, from one shutdown hook thread
 * named {@value #THREAD_NAME}.
 *
 * <p>One hook with an explicit order, rather than one hook per resource: JVM shutdown hooks run
 * concurrently, and a database must be dropped before its server stops, a server stopped before its
 * directory is deleted.
 */
public final class ExitCleanup {

  static final String THREAD_NAME = "tandem-testkit-exit-cleanup";

  private static final Logger LOG = LoggerFactory.getLogger(ExitCleanup.class);
  private static final Object LOCK = new Object();
  private static final Deque<Registration> PENDING = new ArrayDeque<>();
  private static boolean hookInstalled;

  private ExitCleanup() {}

  /**
   * Registers {@code action} to run at JVM exit unless the returned registration is cancelled
   * first.
   */
  public static Registration register(String description, Runnable action) {
    Registration registration = new Registration(description, action);
    synchronized (LOCK) {
      if (!hookInstalled) {
        Runtime.getRuntime().addShutdownHook(new Thread(ExitCleanup::runAll, THREAD_NAME));
        hookInstalled = true;
      }
      PENDING.push(registration);
    }
    return registration;
  }

  private static void runAll() {
    while (true) {
      Registration next;
      synchronized (LOCK) {
        next = PENDING.poll();
      }
      if (next == null) {
        return;
      }
      try {
        next.action.run();
      } catch (RuntimeException | Error e) {
        LOG.warn("Cleanup at JVM exit failed: {}", next.description, e);
      }
    }
  }

  /** A pending exit action; cancel it once the resource was released normally. */
  public static final class Registration {
    private final String description;
    private final Runnable action;

    private Registration(String description, Runnable action) {
      this.description = description;
      this.action = action;
    }

    /** Removes the action; it will not run at exit. Safe to call more than once. */
    public void cancel() {
      synchronized (LOCK) {
        PENDING.remove(this);
      }
    }
  }
}
