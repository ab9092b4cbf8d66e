package dev.resyncmeter.agent.fabric8.request;

import dev.resyncmeter.agent.fabric8.Fabric8;
import dev.resyncmeter.agent.runtime.AgentFaults;
import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.ApiRequests;
import dev.resyncmeter.agent.runtime.Fields;
import dev.resyncmeter.agent.runtime.Getters;
import dev.resyncmeter.agent.runtime.ResourceVersions;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.collector.RestClientMetrics;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.WrittenObject;
import dev.resyncmeter.collector.ThreadContext;
import java.lang.reflect.Method;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Counts a fabric8 request when it is sent (on the sending thread, where its reconcile runs) and when
 * its future completes: with the response's status code, the upgrade response's for a WebSocket, or
 * {@code <error>} when the future failed. Only a dependent stage is added to the client's future; the
 * future itself and what the client does with it stay as they were.
 */
public final class Fabric8RequestBridge {

  /** The switch of the part this belongs to. */
  private static final UnitSwitch SWITCH = Fabric8.REQUESTS.unitSwitch();

  /** {@code HttpResponse.code()} of each response class (fabric8's types are not visible from here). */
  private static final ClassValue<Method> CODE =
      new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
          return Getters.find(type, "code");
        }
      };

  /** {@code KubernetesClientException.getCode()}: the status of a refused request, 0 or less when none came. */
  private static final ClassValue<Method> STATUS_CODE =
      new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
          Method code = Getters.find(type, "getCode");
          return code != null && code.getReturnType() == int.class ? code : null;
        }
      };

  private Fabric8RequestBridge() {}

  /** {@code OperationSupport.getNamespace()} and {@code getName()}: the object an operation writes. */
  private static final ClassValue<Method[]> OPERATION_OBJECT =
      new ClassValue<>() {
        @Override
        protected Method[] computeValue(Class<?> type) {
          try {
            return new Method[] {type.getMethod("getNamespace"), type.getMethod("getName")};
          } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
          }
        }
      };

  /** The resourceVersion {@code object} carries, or null. */
  public static String versionOf(Object object) throws ReflectiveOperationException {
    return SWITCH.on() ? ResourceVersions.of(object) : null;
  }

  /**
   * A write sent by {@code operation} ({@code OperationSupport}) of {@code object}: known by its key
   * until answered, for the echo it makes, and starting from the version {@code before}.
   */
  record Write(String key, String before) {}

  /** An update of {@code updated} is sent: returns the write to hand to {@link #writeAnswered}. */
  public static Object updateSent(Object operation, Object updated) throws ReflectiveOperationException {
    return SWITCH.on() ? sent(operation, updated, ResourceVersions.of(updated)) : null;
  }

  /** A patch (or apply) is sent, starting from the base told before, else from {@code current}. */
  public static Object patchSent(Object operation, Object current) throws ReflectiveOperationException {
    return SWITCH.on() ? sent(operation, current, patchBase(current)) : null;
  }

  private static Write sent(Object operation, Object object, String before) throws ReflectiveOperationException {
    String key = keyOf(operation, object);
    ResyncMetrics metrics = AgentMetrics.get();
    if (metrics != null) {
      metrics.ownWrites().writeSent(key);
    }
    return new Write(key, before);
  }

  /** The key of the object {@code operation} writes: its name and namespace, else {@code object}'s. */
  static String keyOf(Object operation, Object object) throws ReflectiveOperationException {
    Method[] getters = OPERATION_OBJECT.get(operation.getClass());
    if (getters != null) {
      Object name = getters[1].invoke(operation);
      if (name instanceof String) {
        Object namespace = getters[0].invoke(operation);
        return WrittenObject.key(namespace instanceof String ? (String) namespace : null, (String) name);
      }
    }
    WrittenObject written = ResourceVersions.objectOf(object);
    return written == null ? null : written.key();
  }

  /** A patch computed against {@code base} is about to be made on this thread. */
  public static void patchStartsFrom(Object base) throws ReflectiveOperationException {
    ThreadContext context = ThreadContext.current();
    if (context.reconcile().running()) {
      context.reconcile().writeBase(versionOf(base));
    }
  }

  /** The version the patch sent now starts from: the base told before, else {@code current}'s. */
  private static String patchBase(Object current) throws ReflectiveOperationException {
    ThreadContext context = ThreadContext.current();
    if (!context.reconcile().running()) {
      return null;
    }
    return context.reconcile().hasWriteBase() ? context.reconcile().takeWriteBase() : versionOf(current);
  }

  /**
   * A write on this thread ({@code write}, from {@link #updateSent} or {@link #patchSent}; null for a
   * create or delete) returned {@code answer}, or failed with {@code thrown}: refused with a status,
   * or with no answer at all.
   */
  public static void writeAnswered(Object write, Object answer, Throwable thrown) throws ReflectiveOperationException {
    if (SWITCH.isOff()) {
      return;
    }
    Write sent = (Write) write;
    WrittenObject written = thrown == null ? ResourceVersions.objectOf(answer) : null;
    ResyncMetrics metrics = AgentMetrics.get();
    if (metrics != null && (sent != null || written != null)) {
      // a write that changed nothing makes no event: its version is someone else's
      boolean changedNothing = sent != null && written != null && sent.before() != null && sent.before().equals(written.resourceVersion());
      metrics.ownWrites().writeAnswered(sent == null ? null : sent.key(), changedNothing ? null : written);
    }
    ThreadContext context = ThreadContext.current();
    if (!context.reconcile().running()) {
      return;
    }
    if (thrown != null) {
      Method code = STATUS_CODE.get(thrown.getClass());
      context.reconcile().writeAnswered(code == null ? RestClientMetrics.NO_RESPONSE : (Integer) code.invoke(thrown), null, null);
      return;
    }
    // a returned answer is a success (2xx): fabric8 throws for any other status
    context.reconcile().writeAnswered(200, sent == null ? null : sent.before(), written == null ? null : written.resourceVersion());
  }

  public static long sending(String method, URI uri) {
    return ApiRequests.sending(SWITCH, method, uri.getRawPath(), isWatch(uri.getRawQuery()));
  }

  public static void whenAnswered(long sentAt, String method, URI uri, Object future, Throwable thrown) {
    if (sentAt == 0) {
      return;
    }
    if (thrown != null || !(future instanceof CompletableFuture)) {
      ApiRequests.finished(SWITCH, sentAt, uri.getHost(), port(uri), method, RestClientMetrics.NO_RESPONSE);
      return;
    }
    ((CompletableFuture<?>) future).whenComplete(new Answered(sentAt, uri.getHost(), port(uri), method));
  }

  /** The dependent stage: never throws, so the stage it makes completes normally and nobody sees it. */
  private record Answered(long sentAt, String host, int port, String method) implements BiConsumer<Object, Throwable> {
    @Override
    public void accept(Object response, Throwable failure) {
      try {
        ApiRequests.finished(SWITCH, sentAt, host, port, method, failure != null ? RestClientMetrics.NO_RESPONSE : code(response));
      } catch (Throwable t) {
        AgentFaults.record(SWITCH.component(), t);
      }
    }
  }

  /** The status code of an {@code HttpResponse}, or of a {@code WebSocketResponse}'s upgrade response. */
  static int code(Object response) throws ReflectiveOperationException {
    if (response == null) {
      return RestClientMetrics.NO_RESPONSE;
    }
    Method code = CODE.get(response.getClass());
    if (code != null) {
      return (Integer) code.invoke(response);
    }
    Object upgrade = Fields.read(response, "webSocketUpgradeResponse");
    if (upgrade == null) {
      return RestClientMetrics.NO_RESPONSE;
    }
    Method upgradeCode = CODE.get(upgrade.getClass());
    return upgradeCode == null ? RestClientMetrics.NO_RESPONSE : (Integer) upgradeCode.invoke(upgrade);
  }

  /** The port, or the scheme's when the URI names none. */
  static int port(URI uri) {
    int port = uri.getPort();
    if (port >= 0) {
      return port;
    }
    return "https".equalsIgnoreCase(uri.getScheme()) || "wss".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
  }

  static boolean isWatch(String rawQuery) {
    if (rawQuery == null) {
      return false;
    }
    for (String pair : rawQuery.split("&")) {
      if (pair.equals("watch=true") || pair.equals("watch=1")) {
        return true;
      }
    }
    return false;
  }
}
