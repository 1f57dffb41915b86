package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressTest {
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  private String printed() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private void seconds(double s) {
    clock.addAndGet((long) (s * 1e9));
  }

  @Test
  void plainModePrintsALineEveryIntervalWithRateAndTimeLeftThenAFinalLine() {
    Progress p = Progress.start("retention", 1000, out, false, Duration.ofSeconds(10), clock::get);
    seconds(5);
    p.advance(100);
    assertThat(printed()).as("before the interval: nothing").isEmpty();
    seconds(5);
    p.advance(100); // 200 in 10 s: 20/s, 800 left: 40 s
    assertThat(printed()).isEqualTo("retention: 200/1000 (20%), 20.00/s, about 40 s left\n");
    seconds(1);
    p.advance(100);
    assertThat(printed().lines()).as("one line per interval, not per item").hasSize(1);
    seconds(9);
    p.update(1000);
    p.close();
    p.close();
    assertThat(printed().lines())
        .containsExactly(
            "retention: 200/1000 (20%), 20.00/s, about 40 s left",
            "retention: 1000/1000 (100%), 50.00/s",
            "retention: 1000/1000 (100%) in 20.0 s, 50.00/s");
    assertThat(printed()).doesNotContain("\r");
  }

  @Test
  void liveModeRewritesOneLineAtMostTenTimesASecondAndLogsAboveIt() {
    Progress p = Progress.start("drills", 4, out, true, Duration.ofSeconds(10), clock::get);
    seconds(0.05);
    p.advance(1);
    assertThat(printed()).as("within 100 ms of the start: no redraw").isEmpty();
    seconds(60);
    p.advance(1);
    String line = "drills: 2/4 (50%), 0.03/s, about 1 min 00 s left";
    assertThat(printed()).isEqualTo("\r" + line);
    p.log("[drill] relay-killed: PASS");
    String text = printed();
    assertThat(text).contains("\r" + " ".repeat(line.length()) + "\r[drill] relay-killed: PASS\n");
    assertThat(text).endsWith("\rdrills: 2/4 (50%), 0.03/s, about 1 min 00 s left");
    seconds(60);
    p.advance(2);
    p.close();
    assertThat(printed()).endsWith("\rdrills: 4/4 (100%) in 120.1 s, 0.03/s\n");
    assertThat(printed().chars().filter(c -> c == '\n').count())
        .as("only the logged message and the final line end lines")
        .isEqualTo(2);
  }

  @Test
  void anUnknownTotalShowsCountAndRateOnly() {
    Progress p = Progress.start("published", 0, out, false, Duration.ofSeconds(1), clock::get);
    seconds(2);
    p.advance(5000);
    assertThat(printed()).isEqualTo("published: 5000, 2500/s\n");
  }

  @Test
  void theIntervalMustBePositive() {
    assertThatThrownBy(() -> Progress.start("x", 1, out, false, Duration.ZERO, clock::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plainEvery must be positive, was PT0S");
  }
}
