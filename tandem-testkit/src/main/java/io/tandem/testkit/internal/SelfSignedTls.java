package io.tandem.testkit.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for {@code 127.0.0.1} and {@code localhost}, made at test time by the
 * JDK's {@code keytool}: a PKCS12 keystore holding the key and certificate (for a server) and a
 * PKCS12 truststore holding the certificate alone (for its clients), with one random password.
 */
public record SelfSignedTls(Path keystore, Path truststore, String password) {
  private static final String ALIAS = "tandem-test";

  /** The names the certificate is for, unless {@link #create(Path, String)} says otherwise. */
  public static final String LOOPBACK_NAMES = "ip:127.0.0.1,dns:localhost";

  /** Writes {@code keystore.p12} and {@code truststore.p12} for {@link #LOOPBACK_NAMES}. */
  public static SelfSignedTls create(Path directory) {
    return create(directory, LOOPBACK_NAMES);
  }

  /**
   * Writes {@code keystore.p12} and {@code truststore.p12} into {@code directory}, for the subject
   * alternative names {@code names} in keytool's form ({@code ip:10.0.0.1,dns:broker}).
   */
  public static SelfSignedTls create(Path directory, String names) {
    byte[] random = new byte[12];
    new SecureRandom().nextBytes(random);
    String password = HexFormat.of().formatHex(random);
    Path keystore = directory.resolve("keystore.p12");
    Path truststore = directory.resolve("truststore.p12");
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    List<String> command =
        List.of(
            keytool.toString(),
            "-genkeypair",
            "-alias",
            ALIAS,
            "-keyalg",
            "RSA",
            "-keysize",
            "2048",
            "-validity",
            "2",
            "-dname",
            "CN=localhost",
            "-ext",
            "SAN=" + names,
            "-storetype",
            "PKCS12",
            "-keystore",
            keystore.toString(),
            "-storepass:env",
            "TANDEM_TLS_PASSWORD"); // the password through the environment, not argv
    try {
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder.environment().put("TANDEM_TLS_PASSWORD", password);
      Process process = builder.start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "keytool could not create a self-signed certificate in " + directory + ": " + output);
      }
      writeTruststore(keystore, truststore, password);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(
          "Cannot create a self-signed certificate with " + keytool + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running keytool", e);
    }
    return new SelfSignedTls(keystore, truststore, password);
  }

  private static void writeTruststore(Path keystore, Path truststore, String password)
      throws IOException, GeneralSecurityException {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      keys.load(in, password.toCharArray());
    }
    Certificate certificate = keys.getCertificate(ALIAS);
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry(ALIAS, certificate);
    try (OutputStream out = Files.newOutputStream(truststore)) {
      trust.store(out, password.toCharArray());
    }
  }

  @Override
  public String toString() {
    return "SelfSignedTls[" + keystore + ", " + truststore + "]"; // not the password
  }
}
