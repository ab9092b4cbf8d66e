package dev.resyncmeter.collector;

import java.lang.ref.WeakReference;

/**
 * The last queue one thread used and its tracker, part of its {@link ThreadContext}: the next
 * operation on that queue finds its tracker without a map lookup. The queue is held weakly, so a
 * thread that goes idle keeps no queue alive.
 */
final class LastQueue {

  private WeakReference<Object> queue;
  private Object tracker;

  /** The tracker remembered for {@code queue}, or null when this thread used another queue last. */
  Object trackerOf(Object queue) {
    WeakReference<Object> last = this.queue;
    return last != null && last.get() == queue ? tracker : null;
  }

  void remember(Object queue, Object tracker) {
    this.queue = new WeakReference<>(queue);
    this.tracker = tracker;
  }
}
