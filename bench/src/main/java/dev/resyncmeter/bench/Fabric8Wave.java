package dev.resyncmeter.bench;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ConfigMapList;
import io.fabric8.kubernetes.api.model.ConfigMapListBuilder;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import io.fabric8.kubernetes.client.informers.impl.PacedSharedIndexInformer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fabric8 end-to-end program, run in a forked JVM beside {@link ResyncPipeline}: a fabric8
 * {@code SharedIndexInformer<ConfigMap>} with a resync period over an in-process lister of N ConfigMaps
 * (no HTTP, no mock server: fabric8's informer takes any {@code ListerWatcher}), one {@code
 * ResourceEventHandler} that enqueues every object's key ({@code namespace/name}) into a {@link
 * KeyQueue}, and two worker threads that take the keys and run an empty reconcile.
 *
 * <p>The queue is what a fabric8 controller without JOSDK writes for itself: fabric8 ships no
 * workqueue, and its sample controllers use a {@code java.util.concurrent} blocking queue of keys. A
 * set of the keys waiting makes it dedup as client-go's queue does, so a key is queued once however
 * many notifications name it before a worker takes it. Not client-java's {@code DefaultWorkQueue},
 * though the bench has it: a fabric8 controller does not take client-java for a queue, and
 * resync-meter's client-java workqueue part would time it, which a fabric8 host does not have.
 * resync-meter does not instrument a plain {@code java.util.concurrent} queue, so what it adds to this
 * wave is its fabric8 informer part: the tick, the deliveries and the handler calls.
 *
 * <p>The informer's executor is a cached pool of daemon threads, as a fabric8 client's own. fabric8
 * hands each notification to its listener through a serial executor over that pool, one task per
 * notification.
 *
 * <p>A wave is one replay of the cache: from the resync tick until all N handler calls are done and
 * their N reconciles have finished. Wave 0 is the first list (N adds, all delivered: fabric8 drops
 * none of them), never measured. A tick that finds the listener due while a wave is still running is
 * skipped ({@link PacedSharedIndexInformer}), so every wave is exactly N handler calls and N reconciles.
 *
 * <p>{@code Fabric8Wave OBJECTS RESYNC_MS WARMUP_WAVES WAVES WAVE_TIMEOUT_S}, as {@link ResyncPipeline};
 * prints the same {@code wave ...} lines ({@code listenerCpuNanos=-1}: fabric8's deliveries hop between
 * the pool's threads, so no one thread's CPU is the handler's), a {@code counts ...} line and {@code
 * WAVES DONE}, and exits when its input closes. On a failure it prints {@code FAILED ...} and exits 1.
 */
public final class Fabric8Wave {

  static final String NAMESPACE = "default";

  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private final int objects;
  private final int totalWaves;
  private final AtomicLong adds = new AtomicLong();
  private final AtomicLong updates = new AtomicLong();
  private final AtomicLong handlerCalls = new AtomicLong();
  private final AtomicLong reconciles = new AtomicLong();
  private final AtomicLong skippedTicks = new AtomicLong();
  private final List<ResyncPipeline.Wave> waves = new CopyOnWriteArrayList<>();
  private volatile ResyncPipeline.Wave current;

  Fabric8Wave(int objects, int totalWaves) {
    this.objects = objects;
    this.totalWaves = totalWaves;
  }

  public static void main(String[] args) throws Exception {
    int objects = Integer.parseInt(args[0]);
    long resyncMillis = Long.parseLong(args[1]);
    int warmupWaves = Integer.parseInt(args[2]);
    int measuredWaves = Integer.parseInt(args[3]);
    Duration waveTimeout = Duration.ofSeconds(Long.parseLong(args[4]));
    try {
      new Fabric8Wave(objects, 1 + warmupWaves + measuredWaves).run(resyncMillis, warmupWaves, waveTimeout);
    } catch (Throwable t) {
      System.out.println("FAILED " + t);
      System.out.flush();
      System.exit(1);
    }
    System.exit(0);
  }

  void run(long resyncMillis, int warmupWaves, Duration waveTimeout) throws Exception {
    ExecutorService executor = Executors.newCachedThreadPool(daemons("fabric8-informer-"));
    PacedSharedIndexInformer<ConfigMap, ConfigMapList> informer =
        new PacedSharedIndexInformer<>(ConfigMap.class, new Lister(configMaps(objects)), resyncMillis, executor, this::startWave);
    KeyQueue queue = new KeyQueue();
    informer.addEventHandler(new EnqueueHandler(queue, this));
    ThreadFactory workers = daemons("fabric8-worker-");
    for (int i = 0; i < 2; i++) {
      workers.newThread(() -> work(queue)).start();
    }

    startWave(); // wave 0: the first list
    informer.run();

    for (int i = 0; i < totalWaves; i++) {
      ResyncPipeline.Wave wave = awaitWave(i, resyncMillis, waveTimeout);
      String kind = i == 0 ? "list" : i <= warmupWaves ? "warmup" : "measured";
      System.out.println(
          "wave " + i + " " + kind + " waveNanos=" + wave.nanos() + " handlerNanos=" + (wave.handlersDoneNanos - wave.startNanos)
              + " listenerCpuNanos=-1 processCpuNanos=" + (wave.processCpuEnd - wave.processCpuStart) + " threadsCpuNanos="
              + (wave.threadsCpuEnd - wave.threadsCpuStart));
    }
    System.out.println(
        "counts adds=" + adds.get() + " updates=" + updates.get() + " reconciles=" + reconciles.get() + " resyncs=" + (totalWaves - 1)
            + " skippedTicks=" + skippedTicks.get() + " objects=" + objects);
    System.out.println("WAVES DONE");
    System.out.flush();
    // Alive until the bench has scraped the agent, if any, and closes the input.
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    while (in.readLine() != null) {
      // nothing is asked of this program
    }
  }

  private void work(KeyQueue queue) {
    try {
      while (true) {
        queue.take();
        reconciled(); // the reconcile: nothing but counting
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits for wave {@code i} to start (the list at once, the others at a tick) and finish; bounded. */
  private ResyncPipeline.Wave awaitWave(int i, long resyncMillis, Duration waveTimeout) throws InterruptedException {
    long deadline = System.nanoTime() + waveTimeout.toNanos() + TimeUnit.MILLISECONDS.toNanos(3 * resyncMillis);
    while (waves.size() <= i) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("wave " + i + " did not start: " + state());
      }
      Thread.sleep(5);
    }
    ResyncPipeline.Wave wave = waves.get(i);
    if (!wave.done.await(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      throw new IllegalStateException("wave " + i + " did not finish in time: " + state());
    }
    return wave;
  }

  private String state() {
    ResyncPipeline.Wave wave = current;
    return "handler calls " + handlerCalls.get() + " of " + (wave == null ? "?" : wave.targetCalls) + ", reconciles " + reconciles.get()
        + " of " + (wave == null ? "?" : wave.targetReconciles) + ", skipped ticks " + skippedTicks.get();
  }

  /** Called by a tick whose listener is due (and once for the first list): starts a wave when the last one is done and waves remain. */
  boolean startWave() {
    ResyncPipeline.Wave last = current;
    if ((last != null && !last.finished()) || waves.size() >= totalWaves) {
      skippedTicks.incrementAndGet();
      return false;
    }
    ResyncPipeline.Wave wave =
        new ResyncPipeline.Wave(handlerCalls.get() + objects, reconciles.get() + objects, System.nanoTime(), -1, OS.getProcessCpuTime(), TaskCpu.nanos());
    current = wave;
    waves.add(wave);
    return true;
  }

  void handlerCalled(boolean add) {
    (add ? adds : updates).incrementAndGet();
    long calls = handlerCalls.incrementAndGet();
    ResyncPipeline.Wave wave = current;
    if (wave != null && calls == wave.targetCalls) {
      wave.handlersDoneNanos = System.nanoTime();
      wave.done.countDown();
    }
  }

  void reconciled() {
    long count = reconciles.incrementAndGet();
    ResyncPipeline.Wave wave = current;
    if (wave != null && count == wave.targetReconciles) {
      wave.reconcilesDoneNanos = System.nanoTime();
      wave.processCpuEnd = OS.getProcessCpuTime();
      wave.threadsCpuEnd = TaskCpu.nanos();
      wave.done.countDown();
    }
  }

  static List<ConfigMap> configMaps(int count) {
    List<ConfigMap> items = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      items.add(
          new ConfigMapBuilder()
              .withNewMetadata()
              .withNamespace(NAMESPACE)
              .withName("cm-" + i)
              .withResourceVersion("1")
              .endMetadata()
              .withData(Map.of("key", "value-" + i))
              .build());
    }
    return items;
  }

  static ThreadFactory daemons(String prefix) {
    AtomicInteger next = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + next.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /**
   * A controller's queue of keys, as fabric8 controllers without JOSDK write it: a blocking queue, and
   * the set of keys waiting in it, so that a key is queued once until a worker takes it. A key added
   * again while its reconcile runs is queued again (it was taken off the set before the reconcile).
   */
  static final class KeyQueue {
    private final Set<String> waiting = ConcurrentHashMap.newKeySet();
    private final BlockingQueue<String> keys = new LinkedBlockingQueue<>();

    /** Queues {@code key} unless it is waiting already; whether it was queued. */
    boolean add(String key) {
      if (waiting.add(key)) {
        keys.add(key);
        return true;
      }
      return false;
    }

    /** The next key, waiting for one; it is no longer waiting. */
    String take() throws InterruptedException {
      String key = keys.take();
      waiting.remove(key);
      return key;
    }

    int size() {
      return keys.size();
    }
  }

  /** The application's handler: every notification enqueues the object's {@code namespace/name}. */
  static final class EnqueueHandler implements ResourceEventHandler<ConfigMap> {
    private final KeyQueue queue;
    private final Fabric8Wave wave;

    EnqueueHandler(KeyQueue queue, Fabric8Wave wave) {
      this.queue = queue;
      this.wave = wave;
    }

    @Override
    public void onAdd(ConfigMap object) {
      queue.add(Cache.metaNamespaceKeyFunc(object));
      wave.handlerCalled(true);
    }

    @Override
    public void onUpdate(ConfigMap oldObject, ConfigMap newObject) {
      queue.add(Cache.metaNamespaceKeyFunc(newObject));
      wave.handlerCalled(false);
    }

    @Override
    public void onDelete(ConfigMap object, boolean deletedFinalStateUnknown) {
      queue.add(Cache.metaNamespaceKeyFunc(object));
    }
  }

  /**
   * Lists the given ConfigMaps at resource version 1 in one page. Its watch is no watch at all (a
   * completed future of none): no event would come anyway, and fabric8's reflector takes a missing
   * watch as one it need not close. The informer lists once, at its start.
   */
  static final class Lister implements ListerWatcher<ConfigMap, ConfigMapList> {
    private static final Config CONFIG = Config.empty();
    private final List<ConfigMap> items;

    Lister(List<ConfigMap> items) {
      this.items = items;
    }

    @Override
    public CompletableFuture<ConfigMapList> submitList(ListOptions options) {
      return CompletableFuture.completedFuture(new ConfigMapListBuilder().withNewMetadata().withResourceVersion("1").endMetadata().withItems(new ArrayList<>(items)).build());
    }

    @Override
    public CompletableFuture<AbstractWatchManager<ConfigMap>> submitWatch(ListOptions options, Watcher<ConfigMap> watcher) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public Long getLimit() {
      return null;
    }

    @Override
    public int getWatchReconnectInterval() {
      return 1000;
    }

    @Override
    public String getApiEndpointPath() {
      return "api/v1/namespaces/" + NAMESPACE + "/configmaps";
    }

    @Override
    public Config getConfig() {
      return CONFIG;
    }
  }
}
