package dev.resyncmeter.agent.clientjava.workqueue;

import dev.resyncmeter.agent.runtime.AgentFaults;
import dev.resyncmeter.collector.ThreadContext;
import java.util.concurrent.BlockingQueue;

/**
 * Stands in for {@code waitingForAddQueue.offer(entry)} in {@code DefaultDelayingQueue.addAfter}: the
 * host's own offer, made exactly once and its answer returned, with the pending trigger recorded
 * before it (the delaying thread may fire the add at once) and taken back when the full buffer
 * refuses the add (it never fires). The host calls this directly, with no advice's safety net: so
 * this class has no static state whose initialisation could fail, and every line of ours is caught.
 */
public final class DelayedOffer {


  private DelayedOffer() {}

  public static boolean offer(BlockingQueue<Object> waiting, Object entry) {
    ThreadContext context = null;
    try {
      if (WorkQueueBridge.SWITCH.on()) {
        context = ThreadContext.current();
        context.addCall().delayedAddWaiting();
      }
    } catch (Throwable t) {
      recordFault(t);
    }
    boolean accepted = waiting.offer(entry);
    if (!accepted && context != null) {
      try {
        context.addCall().delayedAddRefused();
      } catch (Throwable t) {
        recordFault(t);
      }
    }
    return accepted;
  }

  private static void recordFault(Throwable fault) {
    try {
      AgentFaults.record(WorkQueueBridge.SWITCH.component(), fault);
    } catch (Throwable ignored) {
      // even a failing fault report must not cost the host its offer
    }
  }
}
