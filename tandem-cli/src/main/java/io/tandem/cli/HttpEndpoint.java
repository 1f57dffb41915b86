package io.tandem.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Where the relay's health and metrics endpoint listens and who may read it, checked before
 * anything connects: an address outside loopback only with {@code --http-allow-remote}; a bearer
 * token from a file ({@code --http-token-file}) or the environment ({@value #TOKEN_VARIABLE}),
 * never from the command line, where {@code ps} would show it.
 *
 * @param host the address to bind
 * @param port the port (0: any free one)
 * @param remote whether {@code host} is outside loopback (allowed explicitly)
 * @param token the bearer token every request must carry, if any
 */
record HttpEndpoint(String host, int port, boolean remote, Optional<String> token) {
  /** The environment variable that may hold the endpoint's bearer token. */
  static final String TOKEN_VARIABLE = "TANDEM_RELAY_HTTP_TOKEN";

  /**
   * Checks the options.
   *
   * @throws IllegalArgumentException naming the option: a remote address without {@code
   *     --http-allow-remote}, an unknown host, an unreadable or empty token file
   */
  static HttpEndpoint of(
      String host, int port, boolean allowRemote, Path tokenFile, Map<String, String> env) {
    return of(host, port, allowRemote, tokenFile, env, TOKEN_VARIABLE);
  }

  /** As {@link #of(String, int, boolean, Path, Map)}, the token read from {@code tokenVariable}. */
  static HttpEndpoint of(
      String host,
      int port,
      boolean allowRemote,
      Path tokenFile,
      Map<String, String> env,
      String tokenVariable) {
    boolean remote = !isLoopback(host);
    if (remote && !allowRemote) {
      throw new IllegalArgumentException(
          "--http-host "
              + host
              + " is not a loopback address: /health and /metrics would be reachable from the"
              + " network. Add --http-allow-remote to mean it, and require a bearer token with"
              + " --http-token-file FILE or "
              + tokenVariable);
    }
    return new HttpEndpoint(host, port, remote, token(tokenFile, env, tokenVariable));
  }

  /** The warning to print before a remote bind; empty on loopback. */
  Optional<String> warning() {
    if (!remote) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            Locale.ROOT,
            "WARNING: the relay's /health and /metrics listen on %s, outside loopback: %s",
            host,
            token.isPresent()
                ? "every request must carry the bearer token"
                : "anyone who reaches this address can read them (no token: set "
                    + TOKEN_VARIABLE
                    + " or --http-token-file)"));
  }

  /** Prints {@link #warning()} to {@code err}, if any. */
  void warn(PrintStream err) {
    warning().ifPresent(err::println);
  }

  private static boolean isLoopback(String host) {
    try {
      for (InetAddress address : InetAddress.getAllByName(host)) {
        if (!address.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("--http-host " + host + " is not a known host", e);
    }
  }

  private static Optional<String> token(Path file, Map<String, String> env, String variable) {
    if (file == null) {
      String fromEnv = env.get(variable);
      return fromEnv == null || fromEnv.isBlank()
          ? Optional.empty()
          : Optional.of(checked(fromEnv.strip(), variable));
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--http-token-file " + file + " cannot be read: " + e.getMessage(), e);
    }
    if (text.isEmpty()) {
      throw new IllegalArgumentException("--http-token-file " + file + " is empty");
    }
    return Optional.of(checked(text, "--http-token-file " + file));
  }

  /** A token travels in a header: printable ASCII without spaces, at least 16 characters. */
  private static String checked(String token, String source) {
    if (token.length() < 16 || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new IllegalArgumentException(
          source
              + " must hold a token of at least 16 printable ASCII characters without spaces"
              + " (e.g. openssl rand -hex 32)");
    }
    return token;
  }
}
