package dev.resyncmeter.agent.clientjava.request;

import dev.resyncmeter.agent.clientjava.ClientJava;
import dev.resyncmeter.agent.clientjava.LateControllers;
import dev.resyncmeter.agent.runtime.ApiRequests;
import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.agent.runtime.LateStart;
import dev.resyncmeter.agent.runtime.ResourceVersions;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.collector.Reconcile;
import dev.resyncmeter.collector.ResourceVersionJson;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.ThreadContext;
import dev.resyncmeter.collector.WrittenObject;

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

  /**
   * A request of an {@code ApiClient} to {@code url} is sent: the clock for {@link #finished}, 0 when
   * not counted. An update or patch is a write in flight until its answer.
   */
  public static long sending(String method, String url) {
    long sentAt = ApiRequests.sendingTo(SWITCH, method, url);
    ResyncMetrics metrics;
    if (sentAt != 0 && updates(method) && (metrics = AgentMetrics.get()) != null) {
      metrics.ownWrites().writeSent(WrittenObject.keyOfUrl(url));
    }
    return sentAt;
  }

  private static boolean updates(String method) {
    return "PUT".equals(method) || "PATCH".equals(method);
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
   * A write ({@code method} other than GET) to {@code url} sent on this thread got {@code code}: true
   * when it is a create, update or patch that succeeded, whose answer must be read ({@link
   * #writeAnswerRead}) for the object it made: the version it got back tells its echo, and whether
   * it changed its object. Otherwise its end is told here.
   */
  public static boolean writeAnswered(String method, String url, int code) {
    if (SWITCH.isOff()) {
      return false;
    }
    ResyncMetrics metrics = AgentMetrics.get();
    boolean updates = updates(method);
    if (metrics != null && code >= 200 && code <= 299 && (updates || "POST".equals(method))) {
      return true;
    }
    if (metrics != null && updates) {
      metrics.ownWrites().writeAnswered(WrittenObject.keyOfUrl(url), null);
    }
    Reconcile reconcile = ThreadContext.current().reconcile();
    reconcile.writeAnswered(code, null, null);
    reconcile.takeWriteBase();
    return false;
  }

  /** The first bytes of the answer to a write that {@link #writeAnswered} asked for. */
  public static void writeAnswerRead(String method, String url, int code, byte[] answer) {
    WrittenObject written = ResourceVersionJson.objectOf(answer, answer.length);
    String after = written == null ? null : written.resourceVersion();
    boolean updates = updates(method);
    Reconcile reconcile = ThreadContext.current().reconcile();
    String before = updates && reconcile.running() && reconcile.hasWriteBase() ? reconcile.takeWriteBase() : null;
    ResyncMetrics metrics = AgentMetrics.get();
    if (metrics != null) {
      // a write that changed nothing makes no event: its version is someone else's
      // the answer names its object; only an answer that does not needs the URL read again
      String key = !updates ? null : written != null && written.name() != null ? written.key() : WrittenObject.keyOfUrl(url);
      metrics.ownWrites().writeAnswered(key, after != null && after.equals(before) ? null : written);
    }
    if (before != null) {
      reconcile.writeAnswered(code, before, after);
    } else {
      // a create changes something; an update whose version before is not known, as far as the agent can tell
      reconcile.writeAnswered(code, null, null);
      reconcile.takeWriteBase();
    }
  }

  public static void finished(long sentAt, String host, int port, String method, int code) {
    ApiRequests.finished(SWITCH, sentAt, host, port, method, code);
  }
}
