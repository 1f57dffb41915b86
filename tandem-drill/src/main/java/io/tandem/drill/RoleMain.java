package io.tandem.drill;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.core.ConfiguredFaults;

/**
 * The processes a drill starts, one role each: {@code service} ({@link ServiceRole}: writes
 * business changes and their events), {@code relay} ({@link RelayRole}: publishes the outbox to
 * Kafka), {@code consumer} ({@link ConsumerRole}: applies events through its inbox). Each prints
 * {@value #READY} when it runs; fault points are off unless {@code -Dtandem.faults=...} (see {@link
 * ConfiguredFaults}) is given.
 *
 * <pre>
 * java -cp ... io.tandem.drill.RoleMain service  --jdbc-url U --events N --aggregates A
 *     [--writers W] [--per-commit K] [--rate R] [--mode outbox|direct --kafka-bootstrap B --topic T]
 *     [--poison-at K] [--ack-log FILE]
 * java -cp ... io.tandem.drill.RoleMain relay    --jdbc-url U --kafka-bootstrap B --topic T --id I
 *     [--batch N] [--mode polling|cdc --slot S [--heartbeat-ms MS]]
 * java -cp ... io.tandem.drill.RoleMain consumer --jdbc-url U --kafka-bootstrap B --topic T
 *     --group G [--mode inbox|bypass] [--unordered]
 * </pre>
 */
public final class RoleMain {
  /** Printed by every role once it runs. */
  public static final String READY = "DRILL-ROLE-READY";

  /** Printed by the service once it committed everything it had to. */
  public static final String DONE = "DRILL-SERVICE-DONE";

  /** The consumer name of the drill consumer (its inbox rows and dead letters). */
  public static final String CONSUMER = "drill-consumer";

  static final String AGGREGATE_TYPE = "Account";
  static final String EVENT_TYPE = "AccountChanged";

  private RoleMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: RoleMain service|relay|consumer --option value ...");
      System.exit(2);
    }
    Args a = new Args(args, 1);
    switch (args[0]) {
      case "service" -> ServiceRole.run(a);
      case "relay" -> RelayRole.run(a);
      case "consumer" -> ConsumerRole.run(a);
      default -> {
        System.err.println("unknown role " + args[0]);
        System.exit(2);
      }
    }
  }

  static HikariDataSource pool(String jdbcUrl, String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setPoolName(name);
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(5_000);
    config.setInitializationFailTimeout(-1);
    return new HikariDataSource(config);
  }

  static void ready(String what) {
    System.out.println(READY + " " + what);
    System.out.flush();
  }
}
