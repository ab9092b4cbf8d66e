package dev.resyncmeter.agent.clientjava.request;

import dev.resyncmeter.agent.AgentFaults;
import dev.resyncmeter.agent.ApiRequests;
import dev.resyncmeter.agent.IdentityWeakMap;

/** Which OkHttp clients send client-java's API requests: the ones an {@code ApiClient} built calls on. */
public final class RequestBridge {

  public static final String COMPONENT = "clientjava-requests";

  /** OkHttp clients of {@code ApiClient}s; each is written once, read on every request. */
  private static final IdentityWeakMap<Boolean> API_CLIENTS_HTTP = new IdentityWeakMap<>();

  private RequestBridge() {}

  public static void apiClientUses(Object httpClient) {
    try {
      if (httpClient != null && API_CLIENTS_HTTP.get(httpClient) == null && RequestInstrumentation.SWITCH.on()) {
        API_CLIENTS_HTTP.put(httpClient, Boolean.TRUE);
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** Whether {@code httpClient} is an {@code ApiClient}'s. */
  public static boolean isApiClients(Object httpClient) {
    try {
      return API_CLIENTS_HTTP.get(httpClient) != null;
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
      return false;
    }
  }

  /** A request of an {@code ApiClient} is sent: the clock for {@link #finished}, 0 when not counted. */
  public static long sending(String method, String encodedPath, String watchParameter) {
    return ApiRequests.sending(RequestInstrumentation.SWITCH, method, encodedPath, "true".equals(watchParameter) || "1".equals(watchParameter));
  }

  public static void finished(long sentAt, String host, int port, String method, int code) {
    ApiRequests.finished(RequestInstrumentation.SWITCH, sentAt, host + ":" + port, method, code);
  }
}
