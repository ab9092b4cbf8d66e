package dev.resyncmeter.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Plain HTTP GETs with bounded waits, and free loopback ports for the processes a test starts. */
public final class Net {

  /** A scrape's read timeout. */
  static final Duration SCRAPE_TIMEOUT = Duration.ofSeconds(10);

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private Net() {}

  /** An answer: its status, content type and body (an error status's body too). */
  public record Response(int status, String contentType, String body) {}

  /** GET {@code url}, waiting at most 5 s to connect and {@code readTimeout} to read; {@code accept} null sends none of ours. */
  public static Response get(String url, String accept, Duration readTimeout) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
    connection.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
    connection.setReadTimeout((int) readTimeout.toMillis());
    if (accept != null) {
      connection.setRequestProperty("Accept", accept);
    }
    try {
      int status = connection.getResponseCode();
      InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
      String body = "";
      if (in != null) {
        try (in) {
          body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
      }
      return new Response(status, connection.getContentType(), body);
    } finally {
      connection.disconnect();
    }
  }

  /** A port free on the loopback address now, for a process to listen on. */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
