package io.tandem.testkit;

import io.tandem.testkit.internal.SelfSignedTls;
import io.tandem.testkit.internal.TemporaryDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS listener in front of a plaintext server, for testing clients that connect with TLS ({@code
 * amqps://}, {@code rediss://}) to a broker that has no TLS listener: it accepts TLS on a free
 * loopback port, on a self-signed certificate for {@code 127.0.0.1} made at start, and forwards the
 * decrypted bytes to the target.
 *
 * <pre>{@code
 * try (TlsProxy tls = TlsProxy.start("127.0.0.1", 6379)) {
 *   SSLContext.setDefault(tls.clientContext()); // trust the proxy's certificate
 *   // connect to rediss://127.0.0.1:<tls.port()>
 * }
 * }</pre>
 *
 * <p>Its threads are daemon threads; {@link #close()} stops them and deletes the certificate.
 * Thread-safe.
 */
public final class TlsProxy implements AutoCloseable {
  private final Path directory;
  private final SelfSignedTls tls;
  private final ServerSocket server;
  private final String targetHost;
  private final int targetPort;
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  private TlsProxy(Path directory, SelfSignedTls tls, ServerSocket server, String host, int port) {
    this.directory = directory;
    this.tls = tls;
    this.server = server;
    this.targetHost = host;
    this.targetPort = port;
  }

  /**
   * Starts accepting TLS connections and forwarding them to {@code targetHost:targetPort}, on a
   * certificate for {@code 127.0.0.1} and {@code localhost}.
   *
   * @param protocols the TLS versions it accepts, e.g. {@code "TLSv1.3"}; none given: the JDK's
   *     defaults (TLS 1.2 and 1.3)
   * @throws IllegalStateException if the certificate or the listener cannot be made
   */
  public static TlsProxy start(String targetHost, int targetPort, String... protocols) {
    return open(targetHost, targetPort, SelfSignedTls.LOOPBACK_NAMES, protocols);
  }

  /**
   * Like {@link #start(String, int, String...)}, on a certificate for other names only, e.g. {@code
   * "dns:elsewhere.invalid"}: a client that checks host names must refuse it at {@code 127.0.0.1}.
   */
  public static TlsProxy startWithCertificateFor(
      String subjectAlternativeNames, String targetHost, int targetPort) {
    return open(targetHost, targetPort, subjectAlternativeNames);
  }

  private static TlsProxy open(
      String targetHost, int targetPort, String names, String... protocols) {
    Path directory = TemporaryDirectory.create("tandem-tls-");
    try {
      SelfSignedTls tls = SelfSignedTls.create(directory, names);
      KeyStore keys = load(tls.keystore(), tls.password());
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, tls.password().toCharArray());
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), null, null);
      SSLServerSocket server =
          (SSLServerSocket)
              context
                  .getServerSocketFactory()
                  .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
      if (protocols.length > 0) {
        server.setEnabledProtocols(protocols);
      }
      TlsProxy proxy = new TlsProxy(directory, tls, server, targetHost, targetPort);
      Thread accept = new Thread(proxy::accept, "tandem-tls-proxy-" + server.getLocalPort());
      accept.setDaemon(true);
      accept.start();
      return proxy;
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      TemporaryDirectory.delete(directory);
      throw new IllegalStateException(
          "Cannot start a TLS proxy to " + targetHost + ":" + targetPort + ": " + e, e);
    }
  }

  /** The loopback port that speaks TLS. */
  public int port() {
    return server.getLocalPort();
  }

  /**
   * The PKCS12 truststore holding the proxy's certificate (password: {@link #truststorePassword}).
   */
  public Path truststore() {
    return tls.truststore();
  }

  /** The password of {@link #truststore()}, made up at start. */
  public String truststorePassword() {
    return tls.password();
  }

  /** A client context that trusts the proxy's certificate (and nothing else). */
  public SSLContext clientContext() {
    try {
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(load(tls.truststore(), tls.password()));
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("Cannot read the TLS proxy's truststore: " + e, e);
    }
  }

  /** Stops accepting, closes every forwarded connection and deletes the certificate. */
  @Override
  public void close() {
    closeQuietly(server);
    open.forEach(TlsProxy::closeQuietly);
    TemporaryDirectory.delete(directory);
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket target = new Socket(targetHost, targetPort);
        open.add(client);
        open.add(target);
        pump(client, target, "up");
        pump(target, client, "down");
      } catch (IOException e) {
        // closed, or one connection failed (its client sees the close): keep accepting
      }
    }
  }

  private void pump(Socket from, Socket to, String direction) {
    Thread t =
        new Thread(
            () -> {
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
              } catch (IOException e) {
                // one side closed
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "tandem-tls-proxy-" + direction);
    t.setDaemon(true);
    t.start();
  }

  private static KeyStore load(Path file, String password)
      throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      store.load(in, password.toCharArray());
    }
    return store;
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // already closed
    }
  }
}
