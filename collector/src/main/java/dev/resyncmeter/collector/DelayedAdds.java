package dev.resyncmeter.collector;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The triggers of one queue's delayed adds that the queue accepted and has not fired yet: the later
 * add keeps the trigger it was given. An entry lives only while the queue holds the delayed add.
 * Written by the threads that add and by the queue's delaying thread, outside the queue's lock.
 */
final class DelayedAdds {

  private final Map<Object, Trigger> pending = new ConcurrentHashMap<>();
  private volatile boolean shutDown;

  /** The trigger recorded for {@code item}, or null. */
  Trigger pendingFor(Object item) {
    return pending.get(item);
  }

  /**
   * Records {@code trigger} for the delayed add of {@code item}, merged with one pending already;
   * returns what is recorded now, or null when the queue shut down meanwhile (nothing will fire).
   */
  Trigger record(Object item, Trigger trigger) {
    Trigger recorded = pending.merge(item, trigger, Trigger::merge);
    if (shutDown) {
      forget(item, recorded, null);
      return null;
    }
    return recorded;
  }

  /** Takes back a recorded trigger unless the add fired meanwhile (then it is gone already). */
  void forget(Object item, Trigger recorded, Trigger before) {
    if (before == null) {
      pending.remove(item, recorded);
    } else {
      pending.replace(item, recorded, before);
    }
  }

  /** The delayed add of {@code item} fires: the trigger it was given, or null when none was recorded. */
  Trigger fired(Object item) {
    return pending.isEmpty() ? null : pending.remove(item);
  }

  /** The queue shut down: its delaying thread fires nothing more, so no pending trigger is needed. */
  void shutDown() {
    shutDown = true;
    pending.clear();
  }

  int size() {
    return pending.size();
  }
}
