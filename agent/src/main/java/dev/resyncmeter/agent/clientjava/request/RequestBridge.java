package dev.resyncmeter.agent.clientjava.request;

import dev.resyncmeter.agent.AgentFaults;
import dev.resyncmeter.agent.ApiRequests;
import dev.resyncmeter.agent.IdentityWeakMap;

/** Which OkHttp clients send client-java's API requests: the ones an {@code ApiClient} built calls on. */
public final class RequestBridge {

  public static final String COMPONENT = "clientjava-requests";

  /** OkHttp clients of {@code ApiClient}s; each is written once, read on every request. */
  private static final IdentityWeakMap<Boolean> API_CLIENTS_HTTP = new IdentityWeakMap<>();

  /** The one last found there: most hosts have one {@code ApiClient}, whose requests then need no lookup. */
  private static volatile java.lang.ref.WeakReference<Object> lastFound = new java.lang.ref.WeakReference<>(null);

  private RequestBridge() {}

  public static void apiClientUses(Object httpClient) {
    try {
      if (httpClient != null && lastFound.get() != httpClient && API_CLIENTS_HTTP.get(httpClient) == null && RequestInstrumentation.SWITCH.on()) {
        API_CLIENTS_HTTP.put(httpClient, Boolean.TRUE);
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** Whether {@code httpClient} is an {@code ApiClient}'s. */
  public static boolean isApiClients(Object httpClient) {
    try {
      if (httpClient != null && lastFound.get() == httpClient) {
        return true;
      }
      if (API_CLIENTS_HTTP.get(httpClient) == null) {
        return false;
      }
      lastFound = new java.lang.ref.WeakReference<>(httpClient);
      return true;
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
      return false;
    }
  }

  /** A request of an {@code ApiClient} to {@code url} is sent: the clock for {@link #finished}, 0 when not counted. */
  public static long sending(String method, String url) {
    return ApiRequests.sendingTo(RequestInstrumentation.SWITCH, method, url);
  }

  public static void finished(long sentAt, String host, int port, String method, int code) {
    ApiRequests.finished(RequestInstrumentation.SWITCH, sentAt, host, port, method, code);
  }
}
