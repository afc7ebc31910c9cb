package dev.siglo.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free loopback ports for servers started by tests. */
public final class FreePorts {
  private FreePorts() {}

  /**
   * @return a port that was free on 127.0.0.1 a moment ago
   */
  public static int loopback() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  /**
   * A port for a server that also listens on {@code port + offset} (a Redis Cluster node's bus is
   * its port plus 10,000), both free a moment ago. Both lie below Linux's ephemeral range (32768
   * and up), so no client connection can take either between this probe and the server's bind, as
   * one did on a CI run: a node's bus port, 10,000 above a port from {@link #loopback()}, was an
   * ephemeral port a client held.
   *
   * @param offset the distance to the second port, at most 20,000
   * @return the first port
   */
  public static int loopbackWithSecond(int offset) {
    int low = 10_000;
    int high = 32_767 - offset;
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = java.util.concurrent.ThreadLocalRandom.current().nextInt(low, high + 1);
      if (bindable(port) && bindable(port + offset)) {
        return port;
      }
    }
    throw new IllegalStateException("no free pair of loopback ports " + offset + " apart");
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return s.isBound();
    } catch (IOException e) {
      return false;
    }
  }
}
