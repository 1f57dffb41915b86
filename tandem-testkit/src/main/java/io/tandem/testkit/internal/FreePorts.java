package io.tandem.testkit.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Finds free TCP ports on the loopback interface. */
public final class FreePorts {

  private FreePorts() {}

  /**
   * Returns {@code count} distinct ports that were free on 127.0.0.1 a moment ago. All sockets are
   * held open together so the ports differ; another process may still take one before it is used.
   */
  public static int[] allocate(int count) {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        socket.setReuseAddress(true);
        sockets.add(socket);
      }
      return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find " + count + " free ports on 127.0.0.1", e);
    } finally {
      for (ServerSocket socket : sockets) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // The port was only probed; nothing to release.
        }
      }
    }
  }
}
