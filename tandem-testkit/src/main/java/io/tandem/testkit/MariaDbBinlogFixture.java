package io.tandem.testkit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link MariaDbBinlogServer} for a test class, as a JUnit extension: started before the
 * class's first test and closed after its last. Where mariadbd is not installed or the server does
 * not start, the class is skipped with the reason (printed to stderr too), unless {@code
 * TANDEM_REQUIRE_TOOLS=1} (CI), which makes that a failure.
 *
 * <pre>{@code
 * @RegisterExtension static final MariaDbBinlogFixture BINLOG = new MariaDbBinlogFixture();
 *
 * @Test
 * void streams() {
 *   IsolatedDatabase database = BINLOG.server().createDatabase("cdc_test");
 *   ...
 * }
 * }</pre>
 *
 * <p>Thread safety: {@link #server()} may be called from any thread of the class's tests.
 */
public final class MariaDbBinlogFixture implements BeforeAllCallback, AfterAllCallback {
  private volatile MariaDbBinlogServer binlog;

  /** A fixture that starts its server when the class's tests begin. */
  public MariaDbBinlogFixture() {}

  @Override
  public void beforeAll(ExtensionContext context) {
    String reason = MariaDbBinlogServer.unavailableReason().orElse(null);
    if (reason == null) {
      try {
        binlog = MariaDbBinlogServer.start();
        return;
      } catch (IllegalStateException e) {
        reason = "the binlog MariaDB did not start: " + e.getMessage();
      }
    }
    if ("1".equals(System.getenv("TANDEM_REQUIRE_TOOLS"))) {
      throw new AssertionError(reason + " (TANDEM_REQUIRE_TOOLS=1)");
    }
    System.err.println(context.getRequiredTestClass().getSimpleName() + " skipped: " + reason);
    Assumptions.abort(reason);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    MariaDbBinlogServer started = binlog;
    binlog = null;
    if (started != null) {
      started.close();
    }
  }

  /**
   * The binlog server's MariaDB, to create databases on.
   *
   * @throws IllegalStateException outside the class's tests (before it started or after it closed)
   */
  public MariaDbServer server() {
    MariaDbBinlogServer started = binlog;
    if (started == null) {
      throw new IllegalStateException(
          "the binlog MariaDB runs only during the tests of the class that registers it");
    }
    return started.server();
  }
}
