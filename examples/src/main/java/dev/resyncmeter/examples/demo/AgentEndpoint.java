package dev.resyncmeter.examples.demo;

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

  private final String given;

  /** {@code given}: the URL of {@code --metrics-url}, or null to follow the agent in this JVM. */
  AgentEndpoint(String given) {
    this.given = given;
  }

  /** The URL to read, or null while the agent in this JVM serves none (and none was given). */
  String url() {
    return given != null ? given : served();
  }

  /** The banner's words for where the metrics are. */
  String where() {
    String url = url();
    return url != null ? "metrics at " + url : "no metrics yet: " + whyNothingToRead();
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
    return "the agent runs but " + why + (why.endsWith("the port is in use") ? " (another program has it)" : "")
        + ", so there is nothing to report; choose another port with RESYNC_METER_PORT (RESYNC_METER_PORT=9500 ./demo; 0 picks a free one)";
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
