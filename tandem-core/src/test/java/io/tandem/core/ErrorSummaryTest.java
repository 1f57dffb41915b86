package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class ErrorSummaryTest {

  @Test
  void namesTheClassAndTheFirstLineOfTheMessage() {
    assertThat(ErrorSummary.of(new IllegalStateException("broken\n\tat somewhere")))
        .isEqualTo("IllegalStateException: broken");
    assertThat(ErrorSummary.of(new NullPointerException())).isEqualTo("NullPointerException");
    assertThat(ErrorSummary.of(null)).isNull();
  }

  @Test
  void namesTheRootCauseOnceEvenWhenTheWrapperQuotesIt() {
    SQLException root = new SQLException("Connection refused");
    assertThat(ErrorSummary.of(new TandemException("reading failed", new RuntimeException(root))))
        .isEqualTo("TandemException: reading failed (cause SQLException: Connection refused)");
    assertThat(ErrorSummary.of(new TandemException("reading failed: Connection refused", root)))
        .isEqualTo("TandemException: reading failed: Connection refused (cause SQLException)");
  }

  @Test
  void removesUrlsAndSecretValues() {
    String summary =
        ErrorSummary.of(
            new TandemException(
                "cannot open jdbc:mariadb://db:3306/orders?user=app&password=hunter2,"
                    + " amqps://guest:guest@rabbit:5671/vhost; PASSWORD=Tr0ub4dor"
                    + " token: abc123 secret=xyz nats://u:p@nats:4222",
                null));
    assertThat(summary)
        .doesNotContain("hunter2", "guest", "Tr0ub4dor", "abc123", "xyz", "u:p", "db:3306")
        .contains("<url>", "PASSWORD=***", "token: ***", "secret=***");
  }

  @Test
  void isShortWhateverTheMessage() {
    assertThat(ErrorSummary.of(new IllegalStateException("x".repeat(10_000))))
        .hasSizeLessThanOrEqualTo(ErrorSummary.MAX_LENGTH)
        .endsWith("...");
  }
}
