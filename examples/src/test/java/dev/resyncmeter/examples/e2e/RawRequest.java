package dev.resyncmeter.examples.e2e;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Timer;
import java.util.TimerTask;

/**
 * Sends exactly the given bytes to the endpoint, as no HTTP library would, and returns the status the
 * server answered (0 when it closed without answering). Every read and write is bounded.
 */
final class RawRequest {

  private static final int TIMEOUT_MILLIS = 30_000;
  private static final Timer TIMER = new Timer("raw-request-bound", true);

  private RawRequest() {}

  static int status(String metricsUrl, String request) throws IOException {
    URI uri = URI.create(metricsUrl);
    try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
      socket.setSoTimeout(TIMEOUT_MILLIS);
      // A write has no timeout of its own: closing the socket bounds it.
      TimerTask bound =
          new TimerTask() {
            @Override
            public void run() {
              try {
                socket.close();
              } catch (IOException ignored) {
                // closed already
              }
            }
          };
      TIMER.schedule(bound, 2L * TIMEOUT_MILLIS);
      try {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
        socket.shutdownOutput();
        String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        return answer.startsWith("HTTP/1.1 ") ? Integer.parseInt(answer.substring(9, 12)) : 0;
      } finally {
        bound.cancel();
      }
    }
  }
}
