package dev.resyncmeter.bench;

import io.kubernetes.client.extended.controller.DefaultController;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Vector;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The resync wave's queue half alone, run in a forked JVM: the main thread adds N distinct keys to a
 * controller's {@code DefaultRateLimitingQueue} as a handler would on a resync, and a {@code
 * DefaultController} with two workers and a reconciler that only counts takes them. No informer, no
 * handler: what the agent's workqueue and controller parts, and the JIT's view of the host's own code,
 * cost the work a wave queues.
 *
 * <p>With {@code polluted}, before the controller starts, the JDK's collection methods that the
 * controller's hot path shares ({@code List.equals} behind the Prometheus simpleclient's {@code
 * labels}, {@code HashMap} lookups behind the queue's sets) are called with several receiver and key
 * types, as any agent's own start calls them: a control without an agent for the JIT profile
 * pollution an agent brings.
 *
 * <p>{@code QueueWave OBJECTS WARMUP_WAVES WAVES polluted|clean}. Prints one {@code wave ...} line per
 * wave, a {@code counts ...} line and {@code WAVES DONE}, and exits when its input closes: an agent's
 * endpoint is scraped before.
 */
public final class QueueWave {

  static final long WAVE_TIMEOUT_SECONDS = 120;

  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private final AtomicLong reconciles = new AtomicLong();
  private volatile long target = Long.MAX_VALUE;
  private final Object waveDone = new Object();

  public static void main(String[] args) throws Exception {
    int objects = Integer.parseInt(args[0]);
    int warmupWaves = Integer.parseInt(args[1]);
    int waves = Integer.parseInt(args[2]);
    boolean polluted = args[3].equals("polluted");
    if (polluted) {
      System.out.println("polluted " + pollute());
    }
    new QueueWave().run(objects, warmupWaves, waves);
    while (System.in.read() >= 0) {
      // until the bench closes the input
    }
    // client-java-extended's controller leaves non-daemon threads behind.
    System.exit(0);
  }

  private void run(int objects, int warmupWaves, int waves) throws Exception {
    DefaultRateLimitingQueue<Request> queue = new DefaultRateLimitingQueue<>(Executors.newSingleThreadExecutor(ResyncPipeline.daemon("queue-wave-delaying")));
    DefaultController controller = new DefaultController("queue-wave", this::reconcile, queue);
    controller.setWorkerCount(2);
    controller.setWorkerThreadPool(Executors.newScheduledThreadPool(2, ResyncPipeline.daemon("queue-wave-worker")));
    Thread running = ResyncPipeline.daemon("queue-wave-controller").newThread(controller::run);
    running.start();
    Request[] keys = new Request[objects];
    for (int i = 0; i < objects; i++) {
      keys[i] = new Request("default", "cm-" + i);
    }
    for (int wave = 0; wave < warmupWaves + waves; wave++) {
      long expected = reconciles.get() + objects;
      target = expected;
      long cpuStart = OS.getProcessCpuTime();
      long start = System.nanoTime();
      for (Request key : keys) {
        queue.add(key);
      }
      awaitReconciles(expected);
      long wallNanos = System.nanoTime() - start;
      long cpuNanos = OS.getProcessCpuTime() - cpuStart;
      System.out.println("wave " + wave + " " + (wave < warmupWaves ? "warmup" : "measured") + " wallNanos=" + wallNanos + " cpuNanos=" + cpuNanos);
      Thread.sleep(100); // the workers park before the next wave, as between resyncs
    }
    System.out.println("counts reconciles=" + reconciles.get() + " expected=" + (long) objects * (warmupWaves + waves));
    System.out.println("WAVES DONE");
    System.out.flush();
  }

  private Result reconcile(Request request) {
    if (reconciles.incrementAndGet() == target) {
      synchronized (waveDone) {
        waveDone.notifyAll();
      }
    }
    return new Result(false);
  }

  private void awaitReconciles(long expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAVE_TIMEOUT_SECONDS);
    synchronized (waveDone) {
      while (reconciles.get() < expected) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException("wave not reconciled in " + WAVE_TIMEOUT_SECONDS + " s: " + reconciles.get() + " of " + expected);
        }
        waveDone.wait(Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(left))));
      }
    }
  }

  /** Calls the shared collection methods with several types each; returns a count so none is optimised away. */
  static long pollute() {
    List<List<Object>> lists =
        List.of(
            new ArrayList<>(List.of("a", "b")),
            new LinkedList<>(List.of("a", "b")),
            Arrays.asList("a", "b"),
            Collections.unmodifiableList(new ArrayList<>(List.of("a", "b"))),
            new Vector<>(List.of("a", "b")),
            new CopyOnWriteArrayList<>(List.of("a", "b")));
    Object[] keys = {"x", 1, 2L, List.of(1), new ArrayList<>(List.of(2)), Thread.State.NEW, 'c', 1.0};
    Map<Object, Object> map = new HashMap<>();
    for (Object key : keys) {
      map.put(key, key);
    }
    long found = 0;
    for (int i = 0; i < 200_000; i++) {
      if (lists.get(i % lists.size()).equals(lists.get((i / lists.size()) % lists.size()))) {
        found++;
      }
      if (map.get(keys[i % keys.length]) != null && map.containsKey(keys[(i / keys.length) % keys.length])) {
        found++;
      }
    }
    return found;
  }
}
