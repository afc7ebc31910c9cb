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
}
