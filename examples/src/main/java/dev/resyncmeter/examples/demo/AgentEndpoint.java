package dev.resyncmeter.examples.demo;

import dev.resyncmeter.report.ReportCommand;
import dev.resyncmeter.report.ReportException;
import java.nio.file.Path;

/**
 * Where the demo reads the agent's metrics, and what it says when there is nothing to read. The agent
 * in the demo's JVM (started with {@code -javaagent}, or attached later) tells in the system property
 * {@value #PROPERTY} where it serves ({@code serving URL}) or why it serves nothing; the attach and
 * list commands read the same property. The demo reads the URL given with {@code --metrics-url}, else
 * the one the agent serves (the port it really has: {@code RESYNC_METER_PORT}, {@code port=0}, an
 * attach's {@code port=}), and never another JVM's agent by accident.
 */
final class AgentEndpoint {

  /** The agent's {@code ResyncMeterAgent.ENDPOINT_PROPERTY}, with the values it sets. */
  static final String PROPERTY = "dev.resyncmeter.agent.endpoint";

  private static final String SERVING = "serving ";
  private static final String NO_ENDPOINT = "no endpoint: ";
  private static final String NOT_STARTED = "not started: ";

  /** The user {@code ./demo --tls} gives the agent's basic auth. */
  static final String TLS_USER = "demo";

  private final String given;
  /** With {@code --tls DIR}: what {@link DemoTls} made there, which the agent serves with; else null. */
  private final Path tls;

  /**
   * {@code given}: the URL of {@code --metrics-url}, or null to follow the agent in this JVM; {@code
   * tls}: the folder of {@code --tls DIR}, or null.
   */
  AgentEndpoint(String given, Path tls) {
    this.given = given;
    this.tls = tls;
  }

  /** The scrape at {@code url}, over TLS trusting the demo's certificate and with its password under {@code --tls}. */
  String fetch(String url) throws ReportException {
    return tls == null ? ReportCommand.fetch(url) : ReportCommand.fetch(url, tls.resolve("tls.crt"), TLS_USER, tls.resolve("password"));
  }

  /** The URL to read, or null while the agent in this JVM serves none (and none was given). */
  String url() {
    return given != null ? given : served();
  }

  /** The banner's words for where the metrics are. */
  String where() {
    String url = url();
    if (url == null) {
      return "no metrics yet: " + whyNothingToRead();
    }
    return "metrics at " + url
        + (tls == null ? "" : " (TLS and basic auth: curl --cacert " + tls.resolve("tls.crt") + " -u " + TLS_USER + ":$(cat " + tls.resolve("password") + ") " + url + ")");
  }

  /**
   * Why there is nothing to read from the agent in this JVM: none is here yet (the demo was started
   * without it, to try attach), an attach that did not start, or an agent that could not bind its
   * endpoint. Null when it serves.
   */
  String whyNothingToRead() {
    String state = System.getProperty(PROPERTY);
    if (state == null) {
      long pid = ProcessHandle.current().pid();
      return "no resync-meter agent in this JVM (pid " + pid + "); attach one (java -jar agent/target/resync-meter-agent.jar attach " + pid
          + " port=0) and the reports read where it serves";
    }
    if (state.startsWith(NOT_STARTED)) {
      return "the agent attached to this JVM did not start: " + state.substring(NOT_STARTED.length()) + "; attach it again with other agent arguments";
    }
    if (state.startsWith(NO_ENDPOINT)) {
      return noEndpoint(state.substring(NO_ENDPOINT.length()));
    }
    return null;
  }

  /**
   * Why the agent started with this JVM ({@code -javaagent}) serves no metrics, in one line naming the
   * way out; null when it serves, or no agent started with this JVM.
   */
  static String startedWithoutEndpoint() {
    String state = System.getProperty(PROPERTY);
    return state != null && state.startsWith(NO_ENDPOINT) ? noEndpoint(state.substring(NO_ENDPOINT.length())) : null;
  }

  /** {@code cannot serve metrics on 0.0.0.0:9464: the port is in use} and what to do about it. */
  private static String noEndpoint(String why) {
    boolean port = why.endsWith("the port is in use");
    return "the agent runs but " + why + (port ? " (another program has it)" : "") + ", so there is nothing to report"
        + (port ? "; choose another port with RESYNC_METER_PORT (RESYNC_METER_PORT=9500 ./demo; 0 picks a free one)" : "");
  }

  /** The URL the agent in this JVM serves, a wildcard host made the loopback address; null when it serves none. */
  static String served() {
    String state = System.getProperty(PROPERTY);
    return state == null || !state.startsWith(SERVING) ? null : loopback(state.substring(SERVING.length()));
  }

  /** {@code http://0.0.0.0:9464/metrics} as a client reaches it: {@code http://127.0.0.1:9464/metrics}. */
  static String loopback(String url) {
    return url.replace("://0.0.0.0:", "://127.0.0.1:").replace("://[::]:", "://[::1]:");
  }
}
