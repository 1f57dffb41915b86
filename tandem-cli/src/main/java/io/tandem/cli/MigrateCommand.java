package io.tandem.cli;

import com.zaxxer.hikari.HikariDataSource;
import io.tandem.jdbc.Migrations;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code tandem migrate}: applies Tandem's schema to a database. */
@Command(
    name = "migrate",
    header = "Applies Tandem's schema to a database.",
    mixinStandardHelpOptions = true,
    description = {
      "Applies Tandem's schema (tandem_outbox, tandem_inbox, relay partitions) with Flyway,",
      "tracked in its own history table tandem_schema_history. Running it again is a no-op."
    })
final class MigrateCommand implements Callable<Integer> {
  @Mixin DatabaseOptions database;

  @Override
  public Integer call() {
    try (HikariDataSource ds = database.pool("tandem-migrate", 2)) {
      int applied = Migrations.migrate(ds);
      System.out.println(
          applied == 0
              ? "schema is up to date"
              : "applied " + applied + " migration" + (applied == 1 ? "" : "s"));
    }
    return 0;
  }
}
