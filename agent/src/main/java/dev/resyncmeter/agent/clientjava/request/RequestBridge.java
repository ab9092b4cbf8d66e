package dev.resyncmeter.agent.clientjava.request;

import dev.resyncmeter.agent.clientjava.ClientJava;
import dev.resyncmeter.agent.clientjava.LateControllers;
import dev.resyncmeter.agent.runtime.ApiRequests;
import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.agent.runtime.LateStart;
import dev.resyncmeter.agent.runtime.ResourceVersions;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.collector.ResourceVersionJson;
import dev.resyncmeter.collector.ThreadContext;

/** Which OkHttp clients send client-java's API requests: the ones an {@code ApiClient} built calls on. */
public final class RequestBridge {

  /** The switch of the part this belongs to. */
  private static final UnitSwitch SWITCH = ClientJava.REQUESTS.unitSwitch();

  /**
   * How much of an update's or patch's answer is read for its version: an object's metadata comes
   * first from the API server, but a server that orders fields by name puts managed fields before it.
   */
  public static final long ANSWER_BYTES_READ = 64 * 1024;

  /** OkHttp clients of {@code ApiClient}s; each is written once, read on every request. */
  private static final IdentityWeakMap<Boolean> API_CLIENTS_HTTP = new IdentityWeakMap<>();

  /** The one last found there: most hosts have one {@code ApiClient}, whose requests then need no lookup. */
  private static volatile java.lang.ref.WeakReference<Object> lastFound = new java.lang.ref.WeakReference<>(null);

  private RequestBridge() {}

  public static void apiClientUses(Object httpClient) {
    if (httpClient != null && lastFound.get() != httpClient && API_CLIENTS_HTTP.get(httpClient) == null && SWITCH.on()) {
      API_CLIENTS_HTTP.put(httpClient, Boolean.TRUE);
    }
  }

  /** Whether {@code httpClient} is an {@code ApiClient}'s. */
  public static boolean isApiClients(Object httpClient) {
    if (httpClient != null && lastFound.get() == httpClient) {
      return true;
    }
    if (API_CLIENTS_HTTP.get(httpClient) == null) {
      return false;
    }
    lastFound = new java.lang.ref.WeakReference<>(httpClient);
    return true;
  }

  /** A request of an {@code ApiClient} to {@code url} is sent: the clock for {@link #finished}, 0 when not counted. */
  public static long sending(String method, String url) {
    return ApiRequests.sendingTo(SWITCH, method, url);
  }

  /**
   * An update or patch is built on this thread with {@code body} (the object sent, or the patch):
   * the version it carries is the object's before the write, when a reconcile runs here.
   */
  public static void writeBuilt(String method, Object body) throws ReflectiveOperationException {
    if (("PUT".equals(method) || "PATCH".equals(method)) && SWITCH.on()) {
      ThreadContext context = ThreadContext.current();
      if (!context.reconcile().running() && LateStart.attached()) {
        // the first request of a reconcile that began before the attach: it starts here, before it is sent
        LateControllers.requestOutsideReconcile(context);
      }
      if (context.reconcile().running()) {
        context.reconcile().writeBase(ResourceVersions.of(body));
      }
    }
  }

  /**
   * A write ({@code method} other than GET) sent on this thread got {@code code}: true when it is an
   * update or patch whose answer must be read ({@link #updateAnswered}) to tell whether it changed
   * its object; otherwise its effect is told here.
   */
  public static boolean writeAnswered(String method, int code) {
    if (SWITCH.isOff()) {
      return false;
    }
    ThreadContext context = ThreadContext.current();
    boolean updates = "PUT".equals(method) || "PATCH".equals(method);
    if (updates && code >= 200 && code <= 299 && context.reconcile().running() && context.reconcile().hasWriteBase()) {
      return true;
    }
    context.reconcile().writeAnswered(code, null, null);
    context.reconcile().takeWriteBase();
    return false;
  }

  /** The first bytes of the answer to an update or patch that {@link #writeAnswered} asked for. */
  public static void updateAnswered(int code, byte[] answer) {
    ThreadContext context = ThreadContext.current();
    context.reconcile().writeAnswered(code, context.reconcile().takeWriteBase(), ResourceVersionJson.of(answer));
  }

  public static void finished(long sentAt, String host, int port, String method, int code) {
    ApiRequests.finished(SWITCH, sentAt, host, port, method, code);
  }
}
