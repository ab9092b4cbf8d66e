package dev.resyncmeter.collector;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The parts of an HTTP/1.x request head that the metrics endpoint needs: the request line, the
 * Accept header, and whether a body was announced (never read, but it tells the server to drain
 * before closing). Anything malformed is a {@link Refusal} carrying the status to answer with.
 */
record HttpRequestHead(String method, String path, String accept, String authorization, boolean bodyAnnounced) {

  /** A request the server answers with an error status instead of parsing further. */
  static final class Refusal extends Exception {
    final int status;

    Refusal(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }

  /**
   * Where the head ends in {@code bytes[0, length)}: the index just after the empty line, or -1 while
   * it has not come yet. Lines end with CRLF or a bare LF; empty lines before the request line are
   * skipped, as RFC 9112 section 2.2 allows.
   */
  static int end(byte[] bytes, int length) {
    int lineStart = 0;
    boolean sawRequestLine = false;
    for (int i = 0; i < length; i++) {
      if (bytes[i] != '\n') {
        continue;
      }
      int lineEnd = i > lineStart && bytes[i - 1] == '\r' ? i - 1 : i;
      if (lineEnd == lineStart && sawRequestLine) {
        return i + 1;
      }
      sawRequestLine |= lineEnd > lineStart;
      lineStart = i + 1;
    }
    return -1;
  }

  /** Whether any line has ended in {@code bytes[0, length)}: tells a long request line from long headers. */
  static boolean hasLineEnd(byte[] bytes, int length) {
    for (int i = 0; i < length; i++) {
      if (bytes[i] == '\n') {
        return true;
      }
    }
    return false;
  }

  /** Parses a complete head, {@code bytes[0, end)} as found by {@link #end}. */
  static HttpRequestHead parse(byte[] bytes, int end) throws Refusal {
    // ISO-8859-1 maps every byte to one char, so the checks below see the raw bytes.
    String[] lines = new String(bytes, 0, end, StandardCharsets.ISO_8859_1).split("\r?\n");
    int first = 0;
    while (first < lines.length && lines[first].isEmpty()) {
      first++;
    }
    String[] requestLine = lines[first].split(" ", -1);
    if (requestLine.length != 3) {
      throw new Refusal(400, "the request line is not METHOD TARGET VERSION");
    }
    String method = requestLine[0];
    String target = requestLine[1];
    String version = requestLine[2];
    if (!isToken(method) || target.isEmpty() || !isVisibleAscii(target)) {
      throw new Refusal(400, "malformed request line");
    }
    if (!version.matches("HTTP/[0-9]\\.[0-9]")) {
      throw new Refusal(400, "malformed HTTP version");
    }
    if (version.charAt(5) != '1') {
      throw new Refusal(505, "only HTTP/1.0 and HTTP/1.1 are served");
    }
    StringBuilder accept = null;
    String authorization = null;
    boolean bodyAnnounced = false;
    for (int i = first + 1; i < lines.length && !lines[i].isEmpty(); i++) {
      String line = lines[i];
      int colon = line.indexOf(':');
      // A name is a token right up to the colon; a leading space would be obsolete line folding.
      if (colon <= 0 || !isToken(line.substring(0, colon)) || !isFieldValue(line, colon + 1)) {
        throw new Refusal(400, "malformed header line");
      }
      String name = line.substring(0, colon).toLowerCase(Locale.ROOT);
      String value = line.substring(colon + 1).strip();
      if (name.equals("accept")) {
        accept = accept == null ? new StringBuilder(value) : accept.append(", ").append(value);
      } else if (name.equals("authorization")) {
        if (authorization != null) {
          throw new Refusal(400, "more than one Authorization header");
        }
        authorization = value;
      } else if (name.equals("transfer-encoding") || (name.equals("content-length") && !value.equals("0"))) {
        bodyAnnounced = true;
      }
    }
    return new HttpRequestHead(method, path(target), accept == null ? null : accept.toString(), authorization, bodyAnnounced);
  }

  /** The path of an origin-form ({@code /metrics?x}) or absolute-form ({@code http://h:p/metrics}) target. */
  private static String path(String target) {
    String path = target;
    int scheme = path.indexOf("://");
    if (scheme > 0 && !path.startsWith("/")) {
      int slash = path.indexOf('/', scheme + 3);
      path = slash < 0 ? "/" : path.substring(slash);
    }
    int query = path.indexOf('?');
    return query < 0 ? path : path.substring(0, query);
  }

  private static boolean isToken(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean tchar =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
              || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!tchar) {
        return false;
      }
    }
    return true;
  }

  private static boolean isVisibleAscii(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c <= 0x20 || c >= 0x7f) {
        return false;
      }
    }
    return true;
  }

  /** Field values may hold visible characters, spaces, tabs and obs-text bytes, but no controls. */
  private static boolean isFieldValue(String line, int from) {
    for (int i = from; i < line.length(); i++) {
      char c = line.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return false;
      }
    }
    return true;
  }
}
