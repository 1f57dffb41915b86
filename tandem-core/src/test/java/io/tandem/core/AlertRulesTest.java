package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert rules shipped in the jar ({@code io/tandem/alerts.yml}) pass Prometheus's own checker
 * and their unit tests ({@code alerts-test.yml}: each alert fires on a series that should fire it,
 * and stays quiet on one that should not), and every alert has such a test.
 *
 * <p>promtool is found through the system property {@code tandem.promtool}, the environment
 * variable {@code TANDEM_PROMTOOL}, {@code /opt/tandem-tools/bin/promtool} ({@code
 * .ci/install-promtool} puts it there) or the PATH. Without it the test is skipped, saying so,
 * unless {@code TANDEM_REQUIRE_TOOLS=1}, which makes a missing promtool a failure (CI).
 */
class AlertRulesTest {
  private static final Path INSTALLED = Path.of("/opt/tandem-tools/bin/promtool");
  private static Path promtool;

  @TempDir Path dir;

  @BeforeAll
  static void findPromtool() {
    Optional<Path> found = locate();
    if (found.isEmpty()) {
      String message =
          "promtool not found (tried -Dtandem.promtool, TANDEM_PROMTOOL, "
              + INSTALLED
              + ", PATH): run .ci/install-promtool";
      if ("1".equals(System.getenv("TANDEM_REQUIRE_TOOLS"))) {
        throw new AssertionError(message + " (TANDEM_REQUIRE_TOOLS=1)");
      }
      System.err.println("AlertRulesTest skipped: " + message);
      Assumptions.abort(message);
    }
    promtool = found.get();
  }

  private static Optional<Path> locate() {
    List<String> candidates = new ArrayList<>();
    candidates.add(System.getProperty("tandem.promtool"));
    candidates.add(System.getenv("TANDEM_PROMTOOL"));
    candidates.add(INSTALLED.toString());
    String path = System.getenv("PATH");
    if (path != null) {
      for (String entry : path.split(java.io.File.pathSeparator)) {
        candidates.add(Path.of(entry, "promtool").toString());
      }
    }
    return candidates.stream()
        .filter(c -> c != null && !c.isBlank())
        .map(Path::of)
        .filter(Files::isExecutable)
        .findFirst();
  }

  @Test
  void theShippedRulesPassPromtoolCheckAndTheirUnitTests() throws Exception {
    Path rules = copy("io/tandem/alerts.yml", "alerts.yml");
    Path tests = copy("io/tandem/alerts-test.yml", "alerts-test.yml");

    Result check = run("check", "rules", rules.toString());
    assertThat(check.exit()).as(check.output()).isZero();
    assertThat(check.output()).contains("SUCCESS");

    Result test = run("test", "rules", tests.toString());
    assertThat(test.exit()).as(test.output()).isZero();
    assertThat(test.output()).contains("SUCCESS");
  }

  @Test
  void everyAlertHasAUnitTestThatExpectsItToFire() throws IOException {
    String rules = read("io/tandem/alerts.yml");
    String tests = read("io/tandem/alerts-test.yml");
    TreeSet<String> alerts = names(rules, "-\\s*alert:\\s*(\\S+)");
    assertThat(alerts).hasSizeGreaterThanOrEqualTo(9);
    // an alertname whose exp_alerts is non-empty: the test expects it to fire
    TreeSet<String> firing =
        names(tests, "alertname:\\s*(\\S+)\\s*\\n\\s*exp_alerts:\\s*\\n\\s*-\\s*exp_labels");
    assertThat(firing).as("alerts with a test in which they fire").containsAll(alerts);
  }

  private static TreeSet<String> names(String text, String regex) {
    TreeSet<String> out = new TreeSet<>();
    Matcher m = Pattern.compile(regex).matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private Path copy(String resource, String name) throws IOException {
    Path target = dir.resolve(name);
    Files.writeString(target, read(resource), StandardCharsets.UTF_8);
    return target;
  }

  private static String read(String resource) throws IOException {
    try (InputStream in = AlertRulesTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as("resource " + resource + " on the class path").isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private Result run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(promtool.toString());
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("promtool " + String.join(" ", args) + " did not finish in 60 s");
    }
    return new Result(process.exitValue(), "promtool " + String.join(" ", args) + ":\n" + output);
  }

  private record Result(int exit, String output) {}
}
