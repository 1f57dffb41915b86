package io.tandem.cli;

import com.zaxxer.hikari.HikariDataSource;
import io.tandem.cdc.CdcOperations;
import io.tandem.jdbc.Migrations;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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

  @Option(
      names = "--cdc-publication",
      paramLabel = "NAME",
      description =
          "Also create the PostgreSQL publication the CDC relay reads (tandem_outbox and"
              + " tandem_cdc_heartbeat, inserts only), unless it exists (docs/cdc.md).")
  String cdcPublication;

  @Override
  public Integer call() {
    try (HikariDataSource ds = database.pool("tandem-migrate", 2)) {
      int applied = Migrations.migrate(ds);
      System.out.println(
          applied == 0
              ? "schema is up to date"
              : "applied " + applied + " migration" + (applied == 1 ? "" : "s"));
      if (cdcPublication != null) {
        if (!database.jdbcUrl.startsWith("jdbc:postgresql:")) {
          throw new IllegalArgumentException(
              "--cdc-publication needs PostgreSQL: the CDC relay reads PostgreSQL's WAL");
        }
        boolean created = new CdcOperations(ds).createPublication(cdcPublication);
        System.out.println(
            "publication "
                + cdcPublication
                + (created ? " created" : " exists already (left as it is)"));
      }
    }
    return 0;
  }
}
