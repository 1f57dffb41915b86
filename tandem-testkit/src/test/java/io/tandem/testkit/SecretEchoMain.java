package io.tandem.testkit;

import java.util.concurrent.CountDownLatch;

/** A child for {@link JvmProcessTest}: says whether its argument resolved, then waits. */
public final class SecretEchoMain {
  private SecretEchoMain() {}

  public static void main(String[] args) throws InterruptedException {
    String url = JvmProcess.argument(args[0]);
    // Never print the secret itself: only whether it arrived intact.
    System.out.println("RESOLVED " + url.equals(System.getenv("EXPECTED_URL")) + " " + args[1]);
    System.out.flush();
    new CountDownLatch(1).await(); // until the test ends it
  }
}
