package dev.resyncmeter.bench;

import dev.resyncmeter.examples.apiserver.EmbeddedApiServer;
import dev.resyncmeter.examples.controller.SampleController;
import dev.resyncmeter.testkit.ForkedJvm;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Start-up cost. The parent times {@code java -version} and, with this class's {@link #main}, the
 * time from JVM start to the sample controller's first reconcile against the embedded API server, on
 * the JDK it names; with {@link #OWN_HANDLER}, the application also has a handler class of its own on
 * the informer, as most controllers do (the sample's handlers are client-java's own classes).
 */
public final class StartupProbe {

  static final String FIRST_RECONCILE = "FIRST RECONCILE ";
  /** The probe's argument for the variant whose informer also has a handler class of the application's own. */
  static final String OWN_HANDLER = "own-handler";
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  /** A start with no first reconcile by then hung: far beyond any start, even beside the OpenTelemetry agent on a loaded machine. */
  static final Duration HUNG_AFTER = Duration.ofSeconds(90);

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
   * One start of the probe: the wall time from just before the JVM started to its first reconcile,
   * null when none came within the timeout (a hang); and what it printed that a user would read as a
   * warning: a line of resync-meter's other than its INFO lines, or a JVM warning.
   */
  public record Start(Double millis, List<String> warnings, String transcript) {
    public boolean hung() {
      return millis == null;
    }

    public boolean warned() {
      return !warnings.isEmpty();
    }

    /** This start less the warnings another configuration printed too (another agent's own). */
    public Start without(List<String> othersWarnings) {
      return new Start(millis, warnings.stream().filter(w -> !othersWarnings.contains(w)).toList(), transcript);
    }
  }

  /**
   * Starts the probe on the JDK at {@code javaHome} with {@code options}. Both ends of the delay are read
   * from the wall clock the two processes share, so the reading of the line costs nothing.
   */
  public static Start firstReconcile(Path javaHome, List<String> options, Duration timeout) throws Exception {
    return firstReconcile(javaHome, options, List.of(), timeout);
  }

  /** {@link #firstReconcile(Path, List, Duration)} with the probe's arguments {@code args} ({@link #OWN_HANDLER}). */
  static Start firstReconcile(Path javaHome, List<String> options, List<String> args, Duration timeout) throws Exception {
    Instant start = Instant.now();
    try (ForkedJvm jvm = ForkedJvm.startMain(javaHome, options, StartupProbe.class, args, ForkedJvm.ANY_AGENT_VARIABLES)) {
      String line;
      try {
        line = jvm.awaitStdout(l -> l.startsWith(FIRST_RECONCILE), timeout);
      } catch (IllegalStateException noReconcile) {
        return new Start(null, warnings(jvm.stderr()), noReconcile.getMessage());
      }
      long micros = Long.parseLong(line.substring(FIRST_RECONCILE.length()).trim());
      int exit = jvm.waitFor(Duration.ofSeconds(60));
      if (exit != 0) {
        throw new IllegalStateException("the start-up probe exited " + exit + "\n" + jvm.transcript());
      }
      return new Start((micros - ChronoUnit.MICROS.between(Instant.EPOCH, start)) / 1e3, warnings(jvm.stderr()), jvm.transcript());
    }
  }

  /**
   * A start on the JDK at {@code javaHome}, the probe's own logging quiet, then {@code agentOptions}
   * (agents in their order); hung after {@link #HUNG_AFTER}.
   */
  static Start firstReconcile(Path javaHome, List<String> agentOptions) throws Exception {
    return firstReconcile(javaHome, agentOptions, false);
  }

  /** {@link #firstReconcile(Path, List)}, with a handler class of the application's own when {@code ownHandler}. */
  static Start firstReconcile(Path javaHome, List<String> agentOptions, boolean ownHandler) throws Exception {
    List<String> options = new ArrayList<>(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
    options.addAll(agentOptions);
    return firstReconcile(javaHome, options, ownHandler ? List.of(OWN_HANDLER) : List.of(), HUNG_AFTER);
  }

  /** resync-meter's lines other than INFO, and the JVM's own warnings ("OpenJDK 64-Bit Server VM warning: ..."). */
  static List<String> warnings(List<String> stderr) {
    return stderr.stream()
        .filter(l -> (l.startsWith("[resync-meter]") && !l.startsWith("[resync-meter] INFO ")) || l.contains("VM warning:"))
        .toList();
  }

  /** A handler class of the application's own: it only counts what it is told. */
  static final class OwnHandler implements ResourceEventHandler<V1ConfigMap> {
    volatile int calls;

    @Override
    public void onAdd(V1ConfigMap object) {
      calls++;
    }

    @Override
    public void onUpdate(V1ConfigMap oldObject, V1ConfigMap newObject) {
      calls++;
    }

    @Override
    public void onDelete(V1ConfigMap object, boolean deletedFinalStateUnknown) {
      calls++;
    }
  }

  /**
   * The sample controllers over 8 ConfigMaps, and with {@link #OWN_HANDLER} a handler class of the
   * application's own on their informer; prints the wall clock (epoch µs) of the first reconcile.
   */
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
      if (List.of(args).contains(OWN_HANDLER)) {
        informer.addEventHandler(new OwnHandler());
      }
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
