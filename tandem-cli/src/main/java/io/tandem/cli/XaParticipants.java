package io.tandem.cli;

import io.tandem.core.Redaction;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.XADataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;
import picocli.CommandLine.Option;

/**
 * The participants of the {@code tandem xa} commands: {@code --participant NAME=JDBC_URL}, the
 * names the coordinator gives them (the branch qualifiers of its xids).
 */
final class XaParticipants {
  @Option(
      names = "--participant",
      required = true,
      paramLabel = "NAME=JDBC_URL",
      description =
          "A participant database by its coordinator's name for it, repeated for each, e.g."
              + " --participant accounts=jdbc:postgresql://db:5432/accounts?user=app. The password"
              + " comes from TANDEM_DB_PASSWORD for a URL without one (never from the command"
              + " line).")
  LinkedHashMap<String, String> participants;

  /** The participants' XA data sources, by name. */
  Map<String, XADataSource> dataSources() {
    return dataSources(participants);
  }

  /** The XA data sources of {@code participants} (name to JDBC URL), by name. */
  static Map<String, XADataSource> dataSources(Map<String, String> participants) {
    Map<String, XADataSource> sources = new LinkedHashMap<>();
    String password = System.getenv("TANDEM_DB_PASSWORD");
    participants.forEach(
        (name, url) -> {
          String option = "--participant " + name;
          DatabaseOptions.requireSupportedUrl(url, option + ":");
          boolean withPassword = password != null && !Redaction.containsSecret(url);
          if (url.startsWith("jdbc:postgresql:")) {
            PGXADataSource pg = new PGXADataSource();
            pg.setUrl(url);
            if (withPassword) {
              pg.setPassword(password);
            }
            sources.put(name, pg);
          } else {
            try {
              MariaDbDataSource maria =
                  new MariaDbDataSource(url.replace("jdbc:mysql:", "jdbc:mariadb:"));
              if (withPassword) {
                maria.setPassword(password);
              }
              sources.put(name, maria);
            } catch (SQLException e) {
              throw new IllegalArgumentException(
                  option + ": " + Redaction.redact(e.getMessage()), e);
            }
          }
        });
    return sources;
  }
}
