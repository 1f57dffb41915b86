package io.tandem.cli;

import io.nats.client.AuthHandler;
import io.nats.client.Nats;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * {@code --nats-credentials FILE}: a NATS credentials file (the user JWT and NKEY seed that {@code
 * nsc generate creds} writes), read and checked before anything connects. Its content is never
 * printed.
 */
final class NatsCredentials {
  static final String JWT_BLOCK = "-----BEGIN NATS USER JWT-----";
  static final String SEED_BLOCK = "-----BEGIN USER NKEY SEED-----";

  private NatsCredentials() {}

  /**
   * The authentication the connection signs its CONNECT with.
   *
   * @throws IllegalArgumentException if the file is missing, unreadable or not a credentials file
   */
  static AuthHandler read(Path file) {
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(
          "--nats-credentials " + file + ": no such file (give the .creds file of the NATS user)");
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--nats-credentials " + file + ": cannot be read (" + e.getClass().getSimpleName() + ")");
    }
    String text = new String(content, StandardCharsets.UTF_8);
    if (!text.contains(JWT_BLOCK) || !text.contains(SEED_BLOCK)) {
      throw new IllegalArgumentException(
          "--nats-credentials "
              + file
              + " is not a NATS credentials file: it needs a user JWT ('"
              + JWT_BLOCK
              + "') and an NKEY seed ('"
              + SEED_BLOCK
              + "') block, as 'nsc generate creds' writes them");
    }
    return Nats.staticCredentials(content);
  }
}
