package dev.resyncmeter.collector;

import java.util.ArrayList;
import java.util.List;

/**
 * An update that is an echo if the write in flight for its object is answered with its version: the
 * handler call's own-write count and the trigger of the adds it made wait for that. Settled once, by
 * the write's answer, or as not an echo when no write of the object is left in flight; a worker that
 * takes its item before then processes it as a {@code change} (see {@link #echoNow}). All state is
 * guarded by its {@link OwnWrites}' lock.
 */
public final class PendingEcho {

  /** An update already known to be an echo. */
  public static final PendingEcho ECHO = new PendingEcho(null, null, null, null);

  private final OwnWrites owner;
  final String uid;
  final String key;
  final String version;

  private boolean settled;
  private boolean echo;
  /** The handler whose call it was, once the call ended counting; its own-write count waits here. */
  private HandlerMetrics handler;
  /** Queues that counted a plain add of the call: each counts its trigger when settled. */
  private List<QueueCounts> adds;
  /** Reconciles of work added for this update that ended before it was told: counted when it is. */
  private List<AwaitedReconcile> reconciles;

  PendingEcho(OwnWrites owner, String uid, String key, String version) {
    this.owner = owner;
    this.uid = uid;
    this.key = key;
    this.version = version;
    if (owner == null) {
      settled = true;
      echo = true;
    }
  }

  boolean settled() {
    return settled;
  }

  boolean echo() {
    return echo;
  }

  /** Called under the owner's lock: the answer decides, and what waited is counted. */
  void settle(boolean echo) {
    settled = true;
    this.echo = echo;
    if (echo && handler != null) {
      handler.ownWriteUpdate();
    }
    if (adds != null) {
      for (QueueCounts counts : adds) {
        counts.addCalledOutsideLock(echo ? Trigger.OWN_WRITE : Trigger.CHANGE, false);
      }
    }
    if (reconciles != null) {
      for (AwaitedReconcile reconcile : reconciles) {
        reconcile.echoSettled(echo);
      }
    }
    handler = null;
    adds = null;
    reconciles = null;
  }

  /**
   * Of {@code echoes}, awaited by work taken as {@code own_write}: those not told yet when none is told
   * as no echo already, else null (the work's trigger is settled now: {@link #settled}).
   */
  public static List<PendingEcho> unsettled(List<PendingEcho> echoes) {
    if (echoes == null) {
      return null;
    }
    List<PendingEcho> waiting = null;
    for (PendingEcho echo : echoes) {
      if (echo.echoNow()) {
        continue;
      }
      if (echo.settled()) {
        return null; // told as no echo: a change
      }
      if (waiting == null) {
        waiting = new ArrayList<>(echoes.size());
      }
      waiting.add(echo);
    }
    return waiting;
  }

  /**
   * {@code reconcile} ended on work added for {@code echoes}: it counts once all are told, under
   * {@code own_write} if each is an echo, else {@code change}; now if they are told already.
   */
  static void awaitedBy(List<PendingEcho> echoes, AwaitedReconcile reconcile) {
    OwnWrites owner = echoes.get(0).owner;
    synchronized (owner) {
      for (PendingEcho echo : echoes) {
        if (echo.settled) {
          reconcile.told(echo.echo);
        } else {
          reconcile.awaits();
          if (echo.reconciles == null) {
            echo.reconciles = new ArrayList<>(1);
          }
          echo.reconciles.add(reconcile);
        }
      }
      reconcile.allAwaitsKnown();
    }
  }

  /**
   * The trigger of work whose merged trigger is {@code trigger} and that waited on {@code echoes}
   * (null: none): still {@code own_write} only if each is an echo by now, else a {@code change} (an
   * update not known to be an echo when its work starts).
   */
  public static Trigger settled(Trigger trigger, List<PendingEcho> echoes) {
    if (echoes == null || trigger != Trigger.OWN_WRITE) {
      return trigger;
    }
    for (PendingEcho echo : echoes) {
      if (!echo.echoNow()) {
        return Trigger.CHANGE;
      }
    }
    return trigger;
  }

  /** Whether it is an echo, settling it now if its write was answered already; false while unsettled. */
  boolean echoNow() {
    return this == ECHO || owner.echoNow(this);
  }

  /** The handler call on this update ended; with {@code counting}, it counts among {@code metrics}' own-write updates once an echo. */
  void handlerCallEnded(HandlerMetrics metrics, boolean counting) {
    if (this == ECHO) {
      if (counting) {
        metrics.ownWriteUpdate();
      }
      return;
    }
    synchronized (owner) {
      if (!counting) {
        return;
      }
      if (!settled) {
        handler = metrics;
      } else if (echo) {
        metrics.ownWriteUpdate();
      }
    }
  }

  /** A plain add made during the handler call: counted under its settled trigger. */
  void addCalled(QueueCounts counts) {
    if (this == ECHO) {
      counts.addCalledOutsideLock(Trigger.OWN_WRITE, false);
      return;
    }
    synchronized (owner) {
      if (settled) {
        counts.addCalledOutsideLock(echo ? Trigger.OWN_WRITE : Trigger.CHANGE, false);
        return;
      }
      if (adds == null) {
        adds = new ArrayList<>(2);
      }
      adds.add(counts);
    }
  }
}
