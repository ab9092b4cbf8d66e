package dev.resyncmeter.collector;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Timer;
import java.util.TimerTask;

/**
 * A client that sends exactly the bytes it is given, for requests no HTTP library would send. Like a
 * naive client it writes the whole request before it reads: a server that refuses early must still
 * take (and discard) the rest, or the client sees a reset instead of the answer. Every read waits at
 * most {@code timeoutMillis}.
 */
final class RawHttp {

  /** What came back: the status (0 when the server closed without answering), headers, body. */
  record Response(int status, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  private static final Timer TIMER = new Timer("raw-http-bound", true);

  private RawHttp() {}

  static Response send(int port, String request) throws IOException {
    return send(port, request.getBytes(StandardCharsets.ISO_8859_1), true, 30_000);
  }

  /**
   * Sends {@code request}, then ends the sending side when {@code endInput} (so the server sees the end
   * of what it drains), and reads until the server closes.
   */
  static Response send(int port, byte[] request, boolean endInput, int timeoutMillis)
      throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(timeoutMillis);
      // A write has no timeout of its own: closing the socket bounds it.
      TimerTask bound = closeLater(socket, 2L * timeoutMillis);
      try {
        socket.getOutputStream().write(request);
        socket.getOutputStream().flush();
        if (endInput) {
          socket.shutdownOutput();
        }
        return parse(readToEnd(socket.getInputStream()));
      } finally {
        bound.cancel();
      }
    }
  }

  private static TimerTask closeLater(Socket socket, long millis) {
    TimerTask task =
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
    TIMER.schedule(task, millis);
    return task;
  }

  static byte[] readToEnd(InputStream in) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    in.transferTo(bytes);
    return bytes.toByteArray();
  }

  static Response parse(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    int headEnd = text.indexOf("\r\n\r\n");
    if (text.isEmpty() || headEnd < 0) {
      return new Response(0, Map.of(), text);
    }
    String[] lines = text.substring(0, headEnd).split("\r\n");
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(lines[i].substring(0, colon).toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
    }
    String body = new String(bytes, headEnd + 4, bytes.length - headEnd - 4, StandardCharsets.UTF_8);
    return new Response(Integer.parseInt(lines[0].split(" ")[1]), headers, body);
  }
}
