package io.tandem.rabbitmq;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP forwarder between the transport and the real broker, for network faults: {@link #cut()}
 * drops every connection (as a failed switch would), {@link #freeze()} stops forwarding bytes while
 * keeping connections open (a broker that stops answering). Test code only.
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final String targetHost;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private boolean frozen; // guarded by gate
  private volatile boolean closed;
  private final AtomicLong bytesHeld = new AtomicLong();

  TcpProxy(String targetHost, int targetPort) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    try {
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread acceptor = new Thread(this::accept, "tcp-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** Closes every forwarded connection; new ones are still accepted. */
  void cut() {
    for (Socket socket : sockets) {
      closeQuietly(socket);
    }
    sockets.clear();
  }

  /** Stops forwarding in both directions; connections stay open. */
  void freeze() {
    synchronized (gate) {
      frozen = true;
    }
  }

  void thaw() {
    synchronized (gate) {
      frozen = false;
      gate.notifyAll();
    }
  }

  @Override
  public void close() {
    closed = true;
    thaw();
    closeQuietly(server);
    cut();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(targetHost, targetPort);
        sockets.add(client);
        sockets.add(upstream);
        pump(client, upstream, "up");
        pump(upstream, client, "down");
      } catch (IOException e) {
        if (!closed) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  private void pump(Socket from, Socket to, String direction) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) != -1) {
                  awaitThaw(n);
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // the connection was cut or closed
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "tcp-proxy-" + direction);
    thread.setDaemon(true);
    thread.start();
  }

  /** How many bytes arrived while frozen, held back from the other side. */
  long bytesHeld() {
    return bytesHeld.get();
  }

  private void awaitThaw(int bytes) throws InterruptedException {
    synchronized (gate) {
      if (frozen) {
        bytesHeld.addAndGet(bytes);
      }
      while (frozen && !closed) {
        gate.wait();
      }
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // already closed
    }
  }
}
