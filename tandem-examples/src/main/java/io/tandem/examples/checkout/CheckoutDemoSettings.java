package io.tandem.examples.checkout;

import java.time.Duration;

/**
 * Settings of the checkout demo. {@code jdbcUrl} and {@code kafkaBootstrap} are null for the
 * embedded default (PostgreSQL started from Maven artifacts, Kafka in a child process).
 *
 * @param checkouts checkout sagas to run (default 1000)
 * @param inFlight sagas running at once at most; the demo starts another as one ends (default 16)
 * @param declineRate share of checkouts paid with a card that is declined (default 0.05)
 * @param outOfStockRate share of checkouts of a sold-out product: the pivot fails, the payment is
 *     refunded and the order cancelled (default 0.05)
 * @param shippingFailureRate share of carrier calls that fail transiently; the shipping step is
 *     retried (default 0.1)
 * @param jdbcUrl an external PostgreSQL server (the demo creates and drops its own databases)
 * @param kafkaBootstrap an external Kafka cluster (the demo uses new topics per run)
 * @param mariadbUrl the MariaDB server for the payment service; null for {@code
 *     TANDEM_MARIADB_URL}, else the local default, else PostgreSQL when that does not answer
 * @param useMariaDb false to keep the payment service on PostgreSQL
 * @param timeout how long to wait for every saga to end
 * @param seed the seed of the failure mix (the same seed, the same mix)
 * @param orchestratorKills how many times the orchestrator is killed with {@code SIGKILL} during
 *     the run (orchestration only; default 0): it then runs as its own process, and each kill is
 *     followed by a new process that carries the sagas on
 */
public record CheckoutDemoSettings(
    int checkouts,
    int inFlight,
    double declineRate,
    double outOfStockRate,
    double shippingFailureRate,
    String jdbcUrl,
    String kafkaBootstrap,
    String mariadbUrl,
    boolean useMariaDb,
    Duration timeout,
    long seed,
    int orchestratorKills) {

  /** The most orchestrator kills one run may ask for. */
  public static final int MAX_ORCHESTRATOR_KILLS = 20;

  public static final CheckoutDemoSettings DEFAULTS =
      new CheckoutDemoSettings(
          1000, 16, 0.05, 0.05, 0.1, null, null, null, true, Duration.ofMinutes(5), 42, 0);

  /** Settings without orchestrator kills. */
  public CheckoutDemoSettings(
      int checkouts,
      int inFlight,
      double declineRate,
      double outOfStockRate,
      double shippingFailureRate,
      String jdbcUrl,
      String kafkaBootstrap,
      String mariadbUrl,
      boolean useMariaDb,
      Duration timeout,
      long seed) {
    this(
        checkouts,
        inFlight,
        declineRate,
        outOfStockRate,
        shippingFailureRate,
        jdbcUrl,
        kafkaBootstrap,
        mariadbUrl,
        useMariaDb,
        timeout,
        seed,
        0);
  }

  public CheckoutDemoSettings {
    if (checkouts < 1 || checkouts > 1_000_000) {
      throw new IllegalArgumentException(
          "checkouts must be between 1 and 1000000, was " + checkouts);
    }
    if (inFlight < 1 || inFlight > 10_000) {
      throw new IllegalArgumentException("in-flight must be between 1 and 10000, was " + inFlight);
    }
    rate("decline rate", declineRate);
    rate("out-of-stock rate", outOfStockRate);
    rate("shipping failure rate", shippingFailureRate);
    if (declineRate + outOfStockRate > 1) {
      throw new IllegalArgumentException(
          "decline rate + out-of-stock rate must be at most 1, was "
              + (declineRate + outOfStockRate));
    }
    if (shippingFailureRate > 0.9) {
      throw new IllegalArgumentException(
          "shipping failure rate must be at most 0.9 (every call is retried until one succeeds),"
              + " was "
              + shippingFailureRate);
    }
    if (orchestratorKills < 0 || orchestratorKills > MAX_ORCHESTRATOR_KILLS) {
      throw new IllegalArgumentException(
          "orchestrator kills must be between 0 and "
              + MAX_ORCHESTRATOR_KILLS
              + ", was "
              + orchestratorKills);
    }
    if (orchestratorKills >= checkouts) {
      throw new IllegalArgumentException(
          "orchestrator kills ("
              + orchestratorKills
              + ") must be fewer than the checkouts ("
              + checkouts
              + "): each kill happens with sagas in flight");
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be a positive duration, was " + timeout);
    }
  }

  private static void rate(String name, double value) {
    if (!(value >= 0 && value <= 1)) {
      throw new IllegalArgumentException(name + " must be between 0 and 1, was " + value);
    }
  }
}
