package io.tandem.cli;

import io.tandem.testkit.JvmProcess;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A {@code tandem relay} running as its own JVM, for tests that kill processes. */
final class RelayProcess implements AutoCloseable {
  private static final Pattern HTTP = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)");

  final String relayId;
  final Process process;
  final Path log;

  private RelayProcess(String relayId, Process process, Path log) {
    this.relayId = relayId;
    this.process = process;
    this.log = log;
  }

  static RelayProcess start(String relayId, String jdbcUrl, String kafka, String prefix)
      throws IOException {
    Path log = Files.createTempFile("tandem-relay-" + relayId, ".log");
    ProcessBuilder command =
        JvmProcess.processBuilder(
            List.of("-Xmx256m"),
            TandemCommand.class.getName(),
            JvmProcess.arguments()
                .environment("TANDEM_JDBC_URL", jdbcUrl) // --jdbc-url's default; not in ps
                .add(
                    "relay",
                    "--kafka-bootstrap",
                    kafka,
                    "--destination-prefix",
                    prefix,
                    "--relay-id",
                    relayId,
                    "--lease",
                    "4s",
                    "--heartbeat",
                    "500ms",
                    "--publish-timeout",
                    "2s",
                    "--poll-interval",
                    "200ms",
                    "--batch-size",
                    "100",
                    "--http-port",
                    "0"));
    Process p =
        command
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
            .start();
    return new RelayProcess(relayId, p, log);
  }

  String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  /** The health endpoint's port, once the relay printed it; -1 before. */
  int httpPort() {
    Matcher m = HTTP.matcher(output());
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort() + path))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  /** SIGKILL: no shutdown hook, no clean-up — as a crashed process. */
  void kill() {
    process.destroyForcibly();
  }

  /** SIGTERM: the relay's shutdown hook finishes its batch and gives its partitions back. */
  void terminate() {
    process.destroy();
  }

  @Override
  public void close() {
    process.destroyForcibly();
    File f = log.toFile();
    if (f.exists() && !f.delete()) {
      f.deleteOnExit();
    }
  }
}
