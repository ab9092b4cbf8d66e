package dev.resyncmeter.examples.scenario;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Samples, from inside the application's own handler and reconciler code, which locks the calling
 * thread holds. client-java holds none there, so any lock seen would be one an agent added around
 * the host's code: a deadlock waiting to happen. Sampling keeps the (safepoint) thread dumps rare.
 */
final class LockProbe {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final int every;
  private final AtomicLong calls = new AtomicLong();
  private final AtomicLong sampled = new AtomicLong();
  private final Set<String> held = ConcurrentHashMap.newKeySet();

  LockProbe(int every) {
    this.every = every;
  }

  void sample() {
    if (calls.incrementAndGet() % every != 0) {
      return;
    }
    ThreadInfo info = THREADS.getThreadInfo(new long[] {Thread.currentThread().getId()}, true, true)[0];
    sampled.incrementAndGet();
    for (LockInfo monitor : info.getLockedMonitors()) {
      held.add(monitor.getClassName());
    }
    for (LockInfo synchronizer : info.getLockedSynchronizers()) {
      held.add(synchronizer.getClassName());
    }
  }

  /** One line for the test: how many calls were sampled, and the classes of the locks seen held. */
  String report() {
    return "locks held in host code: " + sampled.get() + " sampled, held " + new TreeSet<>(held);
  }
}
