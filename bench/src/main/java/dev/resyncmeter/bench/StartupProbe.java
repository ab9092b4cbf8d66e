package dev.resyncmeter.bench;

import dev.resyncmeter.examples.apiserver.EmbeddedApiServer;
import dev.resyncmeter.examples.controller.SampleController;
import dev.resyncmeter.testkit.ForkedJvm;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

/**
 * Start-up cost. The parent times {@code java -version} and, with this class's {@link #main}, the
 * time from JVM start to the sample controller's first reconcile against the embedded API server.
 */
public final class StartupProbe {

  static final String FIRST_RECONCILE = "FIRST RECONCILE ";
  static final Duration TIMEOUT = Duration.ofSeconds(120);

  private StartupProbe() {}

  /** Wall time of {@code java <options> -version}, start to exit, in nanoseconds. */
  public static long javaVersionNanos(List<String> options) throws Exception {
    long start = System.nanoTime();
    try (ForkedJvm jvm = ForkedJvm.startJava(options, List.of("-version"), ForkedJvm.ANY_AGENT_VARIABLES)) {
      int exit = jvm.waitFor(TIMEOUT);
      if (exit != 0) {
        throw new IllegalStateException("java -version exited " + exit + "\n" + jvm.transcript());
      }
      return jvm.exitNanos() - start;
    }
  }

  /**
   * Wall time from just before the JVM is started to the first reconcile, in nanoseconds: both ends
   * are read from the wall clock the two processes share, so the reading of the line costs nothing.
   */
  public static long firstReconcileNanos(List<String> options) throws Exception {
    Instant start = Instant.now();
    try (ForkedJvm jvm = ForkedJvm.startMain(options, StartupProbe.class, List.of(), ForkedJvm.ANY_AGENT_VARIABLES)) {
      String line = jvm.awaitStdout(l -> l.startsWith(FIRST_RECONCILE), TIMEOUT);
      long micros = Long.parseLong(line.substring(FIRST_RECONCILE.length()).trim());
      int exit = jvm.waitFor(Duration.ofSeconds(60));
      if (exit != 0) {
        throw new IllegalStateException("the start-up probe exited " + exit + "\n" + jvm.transcript());
      }
      return (micros - ChronoUnit.MICROS.between(Instant.EPOCH, start)) * 1_000;
    }
  }

  /** The sample controllers over 8 ConfigMaps; prints the wall clock (epoch µs) of the first reconcile. */
  public static void main(String[] args) throws Exception {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      for (int i = 0; i < 8; i++) {
        server.create("default", "settings-" + i, Map.of("revision", "0"));
      }
      ApiClient client = new ClientBuilder().setBasePath(server.url()).setReadTimeout(Duration.ZERO).build();
      SharedInformerFactory factory = new SharedInformerFactory(client);
      SharedIndexInformer<V1ConfigMap> informer =
          factory.sharedIndexInformerFor(
              new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client),
              V1ConfigMap.class,
              Duration.ofSeconds(30).toMillis());
      SampleController controllers = new SampleController(client, factory, informer, Duration.ofSeconds(30), SampleController.WatchObserver.NONE);
      controllers.start();
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      // Polled every millisecond: the sample's reconciler counts itself first thing.
      while (controllers.reconciles() == 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no reconcile within " + TIMEOUT);
        }
        Thread.sleep(1);
      }
      System.out.println(FIRST_RECONCILE + ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()));
      System.out.flush();
    }
    System.exit(0);
  }
}
