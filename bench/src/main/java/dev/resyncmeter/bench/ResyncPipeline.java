package dev.resyncmeter.bench;

import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.RateLimitingQueue;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Cache;
import io.kubernetes.client.informer.cache.DeltaFIFO;
import io.kubernetes.client.informer.impl.DefaultSharedIndexInformer;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The end-to-end program, run in a forked JVM: an informer over an in-process lister of N ConfigMaps
 * with a resync period, one handler enqueuing each object's key into a controller's workqueue, and a
 * {@code DefaultController} with two workers and a reconciler that only counts.
 *
 * <p>A wave is one replay of the cache: from the resync tick ({@code DeltaFIFO.resync()}) until all N
 * handler calls are done and the N reconciles they queued are finished. Wave 0 is the first list,
 * never measured: done when it was handled (see {@link #awaitList}). A tick that comes while a wave
 * is still running is skipped by this program's FIFO, so every later wave is exactly N handler calls
 * and N reconciles, however slow the machine. On a failure it prints {@code FAILED ...} and exits.
 *
 * <p>{@code ResyncPipeline OBJECTS RESYNC_MS WARMUP_WAVES WAVES WAVE_TIMEOUT_S}. Prints one
 * {@code wave ...} line per wave, a {@code counts ...} line and {@code WAVES DONE}; then answers
 * {@code heap} on its standard input with {@code heap total|own|row ...} lines and {@code HEAP DONE}, and exits
 * when its input closes.
 *
 * <p>With {@code -D}{@value #RECONCILE_WORK_PROPERTY}{@code =NANOS} every reconcile first busies its worker
 * that long: a control without any agent for what a small cost per item, of the host's own, does to
 * the wave. With {@code -D}{@value #POLLUTED_PROPERTY}{@code =true} the JDK's collection methods are
 * first called with several types each ({@link QueueWave#pollute}), as an agent's weaving calls them
 * with its own: a control without any agent for what that does to the JIT's view of the host's code.
 */
public final class ResyncPipeline {

  static final String CONTROLLER = "resync-pipeline";
  static final String RECONCILE_WORK_PROPERTY = "resyncmeter.bench.reconcileWorkNanos";
  static final String POLLUTED_PROPERTY = "resyncmeter.bench.polluteJitProfiles";
  static final String NAMESPACE = "default";

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private final int objects;
  private final int totalWaves;
  private final AtomicLong adds = new AtomicLong();
  private final AtomicLong updates = new AtomicLong();
  private final AtomicLong handlerCalls = new AtomicLong();
  private final AtomicLong reconciles = new AtomicLong();
  private final AtomicLong skippedTicks = new AtomicLong();
  private final List<Wave> waves = new CopyOnWriteArrayList<>();
  private volatile Wave current;
  private volatile long listenerThreadId;
  private volatile DefaultSharedIndexInformer<V1ConfigMap, V1ConfigMapList> informer;

  ResyncPipeline(int objects, int totalWaves) {
    this.objects = objects;
    this.totalWaves = totalWaves;
  }

  public static void main(String[] args) throws Exception {
    int objects = Integer.parseInt(args[0]);
    long resyncMillis = Long.parseLong(args[1]);
    int warmupWaves = Integer.parseInt(args[2]);
    int measuredWaves = Integer.parseInt(args[3]);
    Duration waveTimeout = Duration.ofSeconds(Long.parseLong(args[4]));
    if (Boolean.getBoolean(POLLUTED_PROPERTY)) {
      System.out.println("polluted " + QueueWave.pollute());
    }
    try {
      new ResyncPipeline(objects, 1 + warmupWaves + measuredWaves).run(resyncMillis, warmupWaves, waveTimeout);
    } catch (Throwable t) {
      // The informer's and the controller's threads are not daemons: without an exit they would keep
      // this JVM, and the bench waiting for it, alive.
      System.out.println("FAILED " + t);
      System.out.flush();
      System.exit(1);
    }
    // client-java-extended's builder leaves a non-daemon executor behind.
    System.exit(0);
  }

  void run(long resyncMillis, int warmupWaves, Duration waveTimeout) throws Exception {
    Lister lister = new Lister(configMaps(objects));
    Cache<V1ConfigMap> cache = new Cache<>();
    informer =
        new DefaultSharedIndexInformer<>(V1ConfigMap.class, lister, resyncMillis, new PacedFifo(cache, this), cache);
    RateLimitingQueue<Request> queue = new DefaultRateLimitingQueue<>(Executors.newSingleThreadExecutor(daemon("pipeline-delaying")));
    informer.addEventHandler(new EnqueueHandler(queue, this));
    SharedInformerFactory factory = new SharedInformerFactory(new ClientBuilder().setBasePath("http://127.0.0.1:1").build());
    Controller controller =
        ControllerBuilder.defaultBuilder(factory)
            .withWorkQueue(queue)
            .withReconciler(new CountingReconciler(this))
            .withReadyFunc(informer::hasSynced)
            .withWorkerCount(2)
            .withName(CONTROLLER)
            .build();

    startWave(); // wave 0: the first list
    informer.run();
    Executors.newSingleThreadExecutor(daemon("pipeline-controller")).submit(controller::run);

    for (int i = 0; i < totalWaves; i++) {
      Wave wave = awaitWave(i, resyncMillis, waveTimeout);
      String kind = i == 0 ? "list" : i <= warmupWaves ? "warmup" : "measured";
      System.out.println(
          "wave " + i + " " + kind + " waveNanos=" + wave.nanos() + " handlerNanos=" + (wave.handlersDoneNanos - wave.startNanos)
              + " listenerCpuNanos=" + (wave.listenerCpuStart < 0 ? -1 : wave.listenerCpuEnd - wave.listenerCpuStart)
              + " processCpuNanos=" + (wave.processCpuEnd - wave.processCpuStart) + " threadsCpuNanos=" + (wave.threadsCpuEnd - wave.threadsCpuStart));
    }
    System.out.println(
        "counts adds=" + adds.get() + " updates=" + updates.get() + " reconciles=" + reconciles.get() + " resyncs=" + (totalWaves - 1)
            + " skippedTicks=" + skippedTicks.get() + " objects=" + objects);
    System.out.println("WAVES DONE");
    System.out.flush();

    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.equals("heap")) {
        HeapProbe.Histogram heap = HeapProbe.liveHeap();
        System.out.println("heap total " + heap.totalBytes() + " " + heap.totalInstances());
        List<HeapProbe.ClassRow> own = heap.ownRows();
        for (HeapProbe.ClassRow row : own.subList(0, Math.min(15, own.size()))) {
          System.out.println("heap own " + row.bytes() + " " + row.instances() + " " + row.name());
        }
        for (HeapProbe.ClassRow row : heap.rows()) {
          if (row.bytes() >= HeapProbe.REPORTED_ROW_BYTES) {
            System.out.println("heap row " + row.bytes() + " " + row.instances() + " " + row.name());
          }
        }
        System.out.println("HEAP DONE");
        System.out.flush();
      }
    }
  }

  /** Waits for wave {@code i} to start (at a tick) and finish; bounded. */
  private Wave awaitWave(int i, long resyncMillis, Duration waveTimeout) throws InterruptedException {
    if (i == 0) {
      return awaitList(waveTimeout);
    }
    long deadline = System.nanoTime() + waveTimeout.toNanos() + TimeUnit.MILLISECONDS.toNanos(3 * resyncMillis);
    while (waves.size() <= i) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("wave " + i + " did not start: " + state());
      }
      Thread.sleep(5);
    }
    Wave wave = waves.get(i);
    if (!wave.done.await(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      throw new IllegalStateException(
          "wave " + i + " did not finish in time: " + state()
              + " (client-java hands sync notifications only to listeners due at the last tick: a tick that"
              + " found none due while the wave was being distributed drops the rest of it)");
    }
    return wave;
  }

  /**
   * Waits for the first list to be handled: the informer has synced and every key its handler calls
   * enqueued was reconciled, with no handler call for a while. Not until N handler calls, as the
   * other waves: the list's notifications are sync notifications, and client-java drops the rest of
   * them when a resync tick during the list finds the listener not yet due (likelier the longer the
   * list takes against the resync period). The cache holds every object either way, and every later
   * wave replays all of them; the program's counts and the agent's both count only the calls made.
   */
  private Wave awaitList(Duration timeout) throws InterruptedException {
    Wave wave = waves.get(0);
    long deadline = System.nanoTime() + timeout.toNanos();
    long quietSince = System.nanoTime();
    long seenCalls = -1;
    while (true) {
      long calls = handlerCalls.get();
      if (calls != seenCalls) {
        seenCalls = calls;
        quietSince = System.nanoTime();
      }
      boolean synced = informer != null && informer.hasSynced();
      if (synced && reconciles.get() == calls && System.nanoTime() - quietSince > TimeUnit.MILLISECONDS.toNanos(200)) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the first list was not handled in time: " + state());
      }
      Thread.sleep(5);
    }
    // Not measured: its clocks are read here, when it was seen done.
    wave.handlersDoneNanos = System.nanoTime();
    wave.reconcilesDoneNanos = wave.handlersDoneNanos;
    wave.processCpuEnd = OS.getProcessCpuTime();
    wave.threadsCpuEnd = TaskCpu.nanos();
    wave.listDone = true;
    return wave;
  }

  private String state() {
    Wave wave = current;
    return "handler calls " + handlerCalls.get() + " of " + (wave == null ? "?" : wave.targetCalls) + ", reconciles " + reconciles.get()
        + " of " + (wave == null ? "?" : wave.targetReconciles) + ", skipped ticks " + skippedTicks.get();
  }

  /**
   * Called by the resync tick (and once for the first list): starts a wave when the last one is done
   * and waves remain. The tick itself runs {@code DeltaFIFO.resync()} only if this says yes.
   */
  boolean startWave() {
    Wave last = current;
    if ((last != null && !last.finished()) || waves.size() >= totalWaves) {
      skippedTicks.incrementAndGet();
      return false;
    }
    long listener = listenerThreadId;
    Wave wave =
        new Wave(
            handlerCalls.get() + objects,
            reconciles.get() + objects,
            System.nanoTime(),
            listener == 0 ? -1 : THREADS.getThreadCpuTime(listener),
            OS.getProcessCpuTime(),
            TaskCpu.nanos());
    current = wave;
    waves.add(wave);
    return true;
  }

  void handlerCalled(boolean add) {
    (add ? adds : updates).incrementAndGet();
    long calls = handlerCalls.incrementAndGet();
    if (listenerThreadId == 0) {
      listenerThreadId = Thread.currentThread().getId();
    }
    Wave wave = current;
    if (wave != null && calls == wave.targetCalls) {
      wave.listenerCpuEnd = THREADS.getCurrentThreadCpuTime();
      wave.handlersDoneNanos = System.nanoTime();
      wave.done.countDown();
    }
  }

  void reconciled() {
    long count = reconciles.incrementAndGet();
    Wave wave = current;
    if (wave != null && count == wave.targetReconciles) {
      wave.reconcilesDoneNanos = System.nanoTime();
      wave.processCpuEnd = OS.getProcessCpuTime();
      wave.threadsCpuEnd = TaskCpu.nanos();
      wave.done.countDown();
    }
  }

  static List<V1ConfigMap> configMaps(int count) {
    List<V1ConfigMap> items = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      items.add(
          new V1ConfigMap()
              .metadata(new V1ObjectMeta().namespace(NAMESPACE).name("cm-" + i).resourceVersion("1"))
              .data(Map.of("key", "value-" + i)));
    }
    return items;
  }

  static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  /** One wave's targets and clocks; {@code done} opens when both the handler calls and the reconciles are in. */
  static final class Wave {
    final long targetCalls;
    final long targetReconciles;
    final long startNanos;
    final long listenerCpuStart;
    final long processCpuStart;
    /** {@link TaskCpu}: every Java thread's CPU, to the nanosecond. */
    final long threadsCpuStart;
    final CountDownLatch done = new CountDownLatch(2);
    volatile long handlersDoneNanos;
    volatile long listenerCpuEnd;
    volatile long reconcilesDoneNanos;
    volatile long processCpuEnd;
    volatile long threadsCpuEnd;

    Wave(long targetCalls, long targetReconciles, long startNanos, long listenerCpuStart, long processCpuStart, long threadsCpuStart) {
      this.targetCalls = targetCalls;
      this.targetReconciles = targetReconciles;
      this.startNanos = startNanos;
      this.listenerCpuStart = listenerCpuStart;
      this.processCpuStart = processCpuStart;
      this.threadsCpuStart = threadsCpuStart;
    }

    /** The first list: done when it was handled, however many of its notifications arrived. */
    volatile boolean listDone;

    boolean finished() {
      return listDone || done.getCount() == 0;
    }

    long nanos() {
      return Math.max(handlersDoneNanos, reconcilesDoneNanos) - startNanos;
    }
  }

  /** The application's handler, as a controller's: every notification enqueues the object's key. */
  static final class EnqueueHandler implements ResourceEventHandler<V1ConfigMap> {
    private final RateLimitingQueue<Request> queue;
    private final ResyncPipeline pipeline;

    EnqueueHandler(RateLimitingQueue<Request> queue, ResyncPipeline pipeline) {
      this.queue = queue;
      this.pipeline = pipeline;
    }

    @Override
    public void onAdd(V1ConfigMap object) {
      queue.add(new Request(object.getMetadata().getNamespace(), object.getMetadata().getName()));
      pipeline.handlerCalled(true);
    }

    @Override
    public void onUpdate(V1ConfigMap oldObject, V1ConfigMap newObject) {
      queue.add(new Request(newObject.getMetadata().getNamespace(), newObject.getMetadata().getName()));
      pipeline.handlerCalled(false);
    }

    @Override
    public void onDelete(V1ConfigMap object, boolean deletedFinalStateUnknown) {
      queue.add(new Request(object.getMetadata().getNamespace(), object.getMetadata().getName()));
    }
  }

  /** A reconciler that does nothing but count: what is measured is the pipeline around it. */
  static final class CountingReconciler implements Reconciler {
    private static final Result DONE = new Result(false);
    private static final long WORK_NANOS = Long.getLong(RECONCILE_WORK_PROPERTY, 0);
    private final ResyncPipeline pipeline;

    CountingReconciler(ResyncPipeline pipeline) {
      this.pipeline = pipeline;
    }

    @Override
    public Result reconcile(Request request) {
      if (WORK_NANOS > 0) {
        busy(WORK_NANOS);
      }
      pipeline.reconciled();
      return DONE;
    }
  }

  /** Keeps this thread busy for {@code nanos}, as work of the host's own would. */
  static void busy(long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  /** client-java's DeltaFIFO; a resync tick replays the cache only when the pipeline starts a wave. */
  static final class PacedFifo extends DeltaFIFO {
    private final ResyncPipeline pipeline;

    @SuppressWarnings({"unchecked", "rawtypes"})
    PacedFifo(Cache cache, ResyncPipeline pipeline) {
      super(cache.getKeyFunc(), cache);
      this.pipeline = pipeline;
    }

    @Override
    public void resync() {
      if (pipeline.startWave()) {
        super.resync();
      }
    }
  }

  /** Lists the given ConfigMaps at resource version 1; its watch sends nothing until it is closed. */
  static final class Lister implements ListerWatcher<V1ConfigMap, V1ConfigMapList> {
    private final List<V1ConfigMap> items;

    Lister(List<V1ConfigMap> items) {
      this.items = items;
    }

    @Override
    public V1ConfigMapList list(CallGeneratorParams params) {
      return new V1ConfigMapList().metadata(new V1ListMeta().resourceVersion("1")).items(new ArrayList<>(items));
    }

    @Override
    public Watchable<V1ConfigMap> watch(CallGeneratorParams params) {
      long seconds = params.timeoutSeconds == null ? 3600 : params.timeoutSeconds;
      return new IdleWatch(Duration.ofSeconds(seconds));
    }
  }

  /** A watch without events: blocks until closed or until its timeout, as a server's quiet watch does. */
  static final class IdleWatch implements Watchable<V1ConfigMap> {
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Duration timeout;

    IdleWatch(Duration timeout) {
      this.timeout = timeout;
    }

    @Override
    public boolean hasNext() {
      try {
        closed.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return false;
    }

    @Override
    public Watch.Response<V1ConfigMap> next() {
      throw new NoSuchElementException();
    }

    @Override
    public Iterator<Watch.Response<V1ConfigMap>> iterator() {
      return this;
    }

    @Override
    public void close() {
      closed.countDown();
    }
  }
}
