package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DurationConverterTest {
  private final DurationConverter converter = new DurationConverter();

  @Test
  void readsEveryUnit() {
    assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(converter.convert("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(converter.convert("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(converter.convert("2h")).isEqualTo(Duration.ofHours(2));
    assertThat(converter.convert("7d")).isEqualTo(Duration.ofDays(7));
    assertThat(converter.convert("PT30S")).isEqualTo(Duration.ofSeconds(30));
    assertThat(converter.convert("36500d")).isEqualTo(DurationConverter.MAX);
  }

  @Test
  void refusesAnOverlongOrOverflowingDurationNamingTheMaximum() {
    for (String value :
        new String[] {
          "99999999999d",
          "36501d",
          "9223372036854775807d",
          "9999999999999h",
          "PT9999999999999H",
          "P99999999999D",
          "99999999999999999999s"
        }) {
      assertThatThrownBy(() -> converter.convert(value))
          .as(value)
          .isInstanceOf(CommandLine.TypeConversionException.class)
          .hasMessageContaining(value);
    }
    assertThatThrownBy(() -> converter.convert("99999999999d")).hasMessageContaining("36500d");
  }

  @Test
  void theCommandSaysSoInOneLine() {
    Cli cli = Cli.run("outbox", "retention", "--older-than", "99999999999d", "--dry-run");
    assertThat(cli.status()).isEqualTo(2);
    assertThat(cli.err()).contains("99999999999d", "36500d").doesNotContain("Exception");
  }
}
