package dev.resyncmeter.collector;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * An update that is an echo if the write in flight for its object is answered with its version. What
 * depends on it (the handler call's own-write count, its adds' trigger counts, a reconcile of the work
 * it added) waits to be told, once: by the write's answer, or as no echo when no write of the object
 * is left in flight. It knows nothing of what waits; each waiter says what it counts.
 */
public final class PendingEcho {

  /** Where a pending echo asks whether its version has been answered by now. */
  interface Answers {
    boolean answeredWith(String uid, String version);
  }

  /** Told once whether the update was an echo. */
  interface Waiter {
    void told(boolean echo);
  }

  /** An update already known to be an echo. */
  public static final PendingEcho ECHO = new PendingEcho(null, null, null, null);

  private final Answers answers;
  final String uid;
  final String key;
  final String version;

  // guarded by this
  private boolean settled;
  private boolean echo;
  private List<Waiter> waiters;

  PendingEcho(Answers answers, String uid, String key, String version) {
    this.answers = answers;
    this.uid = uid;
    this.key = key;
    this.version = version;
    if (answers == null) {
      settled = true;
      echo = true;
    }
  }

  synchronized boolean settled() {
    return settled;
  }

  synchronized boolean echo() {
    return echo;
  }

  /** Tells it, once: the waiters are told, on this thread, outside its lock. */
  void settle(boolean isEcho) {
    List<Waiter> told;
    synchronized (this) {
      if (settled) {
        return;
      }
      settled = true;
      echo = isEcho;
      told = waiters;
      waiters = null;
    }
    if (told != null) {
      for (Waiter waiter : told) {
        waiter.told(isEcho);
      }
    }
  }

  /** {@code waiter} is told whether it was an echo: now if it is told already, else when it is. */
  void whenTold(Waiter waiter) {
    boolean isEcho;
    synchronized (this) {
      if (!settled) {
        if (waiters == null) {
          waiters = new ArrayList<>(2);
        }
        waiters.add(waiter);
        return;
      }
      isEcho = echo;
    }
    waiter.told(isEcho);
  }

  /** Whether it is an echo, settling it now if its write was answered already; false while unsettled. */
  boolean echoNow() {
    synchronized (this) {
      if (settled) {
        return echo;
      }
    }
    if (answers.answeredWith(uid, version)) {
      settle(true);
    }
    return echo();
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
   * {@code then} gets the trigger of work that waited on {@code echoes} once all are told: {@code
   * own_write} if each was an echo, else {@code change}; on the thread that tells the last.
   */
  static void whenAllTold(List<PendingEcho> echoes, Consumer<Trigger> then) {
    AllTold all = new AllTold(echoes.size(), then);
    for (PendingEcho echo : echoes) {
      echo.whenTold(all);
    }
  }

  private static final class AllTold implements Waiter {
    private final Consumer<Trigger> then;
    private int left;
    private boolean noEcho;

    AllTold(int left, Consumer<Trigger> then) {
      this.left = left;
      this.then = then;
    }

    @Override
    public void told(boolean echo) {
      boolean last;
      synchronized (this) {
        noEcho |= !echo;
        last = --left == 0;
      }
      if (last) {
        then.accept(noEcho ? Trigger.CHANGE : Trigger.OWN_WRITE);
      }
    }
  }
}
