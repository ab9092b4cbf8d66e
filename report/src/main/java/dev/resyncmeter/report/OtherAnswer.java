package dev.resyncmeter.report;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;

/**
 * An endpoint's answer other than 200, in words: HTTP 404 from something that is not the agent (a
 * port another program has, the agent serving on another) says so, not that the agent is missing.
 */
final class OtherAnswer {

  /** How the agent's endpoint answers any path but {@code /metrics} (collector's MetricsServer). */
  static final String AGENTS_NOT_FOUND = "Not found: only /metrics is served";

  /** At most this much of an answer's body is read to tell whose it is. */
  private static final int PEEK = 256;

  private OtherAnswer() {}

  /** The line for {@code url}'s answer {@code status}, whose body {@code connection} still holds. */
  static String of(String url, int status, String reason, HttpURLConnection connection) {
    return of(url, status, reason, peek(connection));
  }

  static String of(String url, int status, String reason, String body) {
    String line = url + " answered HTTP " + status + (reason == null ? "" : " " + reason) + ", not the metrics";
    if (status != 404) {
      return line;
    }
    if (body.startsWith(AGENTS_NOT_FOUND)) {
      return line + ": the agent serves its metrics at the path /metrics only";
    }
    return line + ": something other than the resync-meter agent answers on that port; the agent's start line names the port it"
        + " serves (its port= argument or RESYNC_METER_PORT, 9464 by default)";
  }

  /** The start of the answer's body, or nothing when there is none to read. */
  private static String peek(HttpURLConnection connection) {
    try (InputStream in = connection.getErrorStream()) {
      return in == null ? "" : new String(in.readNBytes(PEEK), StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
