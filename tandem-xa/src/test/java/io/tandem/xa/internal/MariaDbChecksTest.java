package io.tandem.xa.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB/MySQL checks that the machine's server cannot show (it is no Galera node, is recent
 * and lets anyone run XA RECOVER): the same functions start() runs, fed what such servers answer.
 */
class MariaDbChecksTest {

  @Test
  void aGaleraNodeIsRefused() {
    assertThat(MariaDbXaDialect.problemsOf("ledger", "10.11.6-MariaDB", "ON"))
        .singleElement()
        .asString()
        .contains("participant 'ledger'")
        .contains("Galera does not support XA");
    assertThat(MariaDbXaDialect.problemsOf("ledger", "10.11.6-MariaDB", "OFF")).isEmpty();
  }

  @Test
  void serversThatLoseAPreparedBranchWithItsConnectionAreRefused() {
    assertThat(MariaDbXaDialect.problemsOf("ledger", "10.4.31-MariaDB", null))
        .singleElement()
        .asString()
        .contains("Use MariaDB 10.5 or later");
    assertThat(MariaDbXaDialect.problemsOf("ledger", "5.7.44", null))
        .singleElement()
        .asString()
        .contains("MySQL 8.0 or later");
    assertThat(MariaDbXaDialect.problemsOf("ledger", "8.0.36", null)).isEmpty();
  }

  @Test
  void mysqlsMissingXaRecoverAdminIsAPrivilegeError() {
    // What MySQL 8 answers XA RECOVER without XA_RECOVER_ADMIN.
    SQLException denied =
        new SQLException(
            "Access denied; you need (at least one of) the XA_RECOVER_ADMIN privilege(s) for"
                + " this operation",
            "42000",
            1227);
    assertThat(MariaDbXaDialect.isPrivilegeError(denied)).isTrue();
    assertThat(MariaDbXaDialect.isPrivilegeError(new SQLException("syntax", "42000", 1064)))
        .isFalse();
  }
}
