package dev.resyncmeter.agent.runtime;

import dev.resyncmeter.collector.InformerListener;
import dev.resyncmeter.collector.NotificationType;
import dev.resyncmeter.collector.PendingEcho;
import dev.resyncmeter.collector.ResyncMetrics;

/**
 * What the client-java and fabric8 bridges do alike with a handler's own call, once each found the
 * listener it belongs to in its own library's way: which notification a method handles, an update's
 * cause and versions, and the call's end.
 */
public final class HandlerCalls {

  private HandlerCalls() {}

  /** The notification that {@code onAdd} or {@code onDelete} ({@code method}) handles. */
  public static NotificationType addOrDelete(String method) {
    return "onAdd".equals(method) ? NotificationType.ADD : NotificationType.DELETE;
  }

  /**
   * An update call was opened on {@code listener}, or none (null). Old and new are one instance only
   * in a periodic resync; a {@code relist} update is one the library marked where the relist made it;
   * both are syncs. Returns the call to finish, or null.
   */
  public static Object updateOpened(
      InformerListener listener, boolean sameInstance, boolean relist, String oldVersion, String newVersion, Object newObject, UnitSwitch unit) {
    if (listener != null) {
      listener.updateSeen(sameInstance || relist, sameInstance, oldVersion, newVersion, echo(oldVersion, newVersion, newObject, unit));
    }
    return listener;
  }

  /**
   * Whether an update to {@code newObject} is an echo of a write from this process: looked up only
   * when its version changed and some write was seen, so a no-op update costs nothing more.
   */
  private static PendingEcho echo(String oldVersion, String newVersion, Object newObject, UnitSwitch unit) {
    ResyncMetrics metrics;
    if (newVersion == null || newVersion.equals(oldVersion) || (metrics = AgentMetrics.get()) == null || !metrics.ownWrites().anyWrite()) {
      return null;
    }
    try {
      return metrics.ownWrites().check(ResourceVersions.objectOf(newObject));
    } catch (Throwable t) {
      // the call is open already: it must go on to its end, only not as an echo
      AgentFaults.record(unit.component(), t);
      return null;
    }
  }

  /**
   * The handler method returned or threw; {@code call} is what it opened, or null. Not gated like the
   * start: a call opened while {@code unit} was on is always closed, and counted unless it went off
   * since.
   */
  public static void finished(Object call, UnitSwitch unit) {
    if (call != null) {
      ((InformerListener) call).callFinished(!unit.isOff());
    }
  }
}
