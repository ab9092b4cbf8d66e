package dev.resyncmeter.agent.runtime;

import dev.resyncmeter.collector.ApiVerb;
import dev.resyncmeter.collector.InformerListener;
import dev.resyncmeter.collector.RestClientMetrics;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.ThreadContext;
import java.util.function.Consumer;

/**
 * What every client library's request advice reports, whichever HTTP client sends: a request leaves
 * (counted under the reconcile or handler call on the sending thread, if any) and later its response
 * starts or it fails (counted in the REST client meters, on whatever thread that happens).
 */
public final class ApiRequests {

  /**
   * Told of a request sent outside any reconcile after a late start: a library unit that knows of
   * reconciles the agent could not see begin (a worker busy at the attach) sets it. Null when none.
   */
  private static volatile Consumer<ThreadContext> outsideReconcile;

  private ApiRequests() {}

  /** {@code hook} is told of every request sent outside a reconcile after a late start. */
  public static void whenSentOutsideReconcile(Consumer<ThreadContext> hook) {
    outsideReconcile = hook;
  }

  /**
   * A request is sent now on this thread. Returns the clock to hand to {@link #finished}, or 0 when
   * {@code unit} is off or the agent has not started (nothing is counted for it then).
   */
  public static long sending(UnitSwitch unit, String method, String path, boolean watchQuery) {
    return sending(unit, method, path, watchQuery, null);
  }

  /** {@link #sending(UnitSwitch, String, String, boolean)} of a request to a whole URL. */
  public static long sendingTo(UnitSwitch unit, String method, String url) {
    return sending(unit, method, null, false, url);
  }

  private static long sending(UnitSwitch unit, String method, String path, boolean watchQuery, String url) {
    ResyncMetrics metrics = AgentMetrics.whenOn(unit);
    if (metrics == null) {
      return 0;
    }
    ThreadContext context = ThreadContext.current();
    Consumer<ThreadContext> hook = outsideReconcile;
    if (hook != null && LateStart.attached() && !context.reconcile().running()) {
      hook.accept(context);
    }
    InformerListener listener = context.listener();
    ApiVerb verb = url != null ? ApiVerb.ofUrl(method, url) : ApiVerb.of(method, path, watchQuery);
    metrics.apiRequestSent(context, verb, listener != null ? listener.handlerLabel() : null);
    long now = System.nanoTime();
    return now == 0 ? 1 : now;
  }

  /**
   * The request sent at {@code sentAt} got a response with {@code code}, or none
   * ({@link RestClientMetrics#NO_RESPONSE}).
   */
  public static void finished(UnitSwitch unit, long sentAt, String host, int port, String method, int code) {
    ResyncMetrics metrics = AgentMetrics.get();
    if (sentAt == 0 || metrics == null || unit.isOff()) {
      return;
    }
    metrics.restClient().requestFinished(host, port, method, code, System.nanoTime() - sentAt);
  }
}
