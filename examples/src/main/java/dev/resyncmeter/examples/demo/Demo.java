package dev.resyncmeter.examples.demo;

import dev.resyncmeter.examples.apiserver.EmbeddedApiServer;
import dev.resyncmeter.examples.controller.EchoControllers;
import dev.resyncmeter.examples.controller.SampleController;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.options.ListOptions;
import dev.resyncmeter.report.Problems;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;

/**
 * The demo: the sample controllers against the embedded API server (or a real cluster with
 * {@code --kubeconfig}), a little churn of ConfigMaps, an expired watch now and then, a ConfigMap
 * that drifts without a watch event now and then, and every few seconds a summary read from the
 * agent's {@code /metrics}. In a pod, {@code --in-cluster} watches the cluster's ConfigMaps with the
 * pod's service account; on a real cluster the demo neither writes nor runs the controller that does.
 *
 * <p>{@code demo [--library client-java|fabric8|josdk] [--metrics-url URL] [--kubeconfig FILE | --in-cluster] [--seconds N]}; runs
 * until stopped, or N seconds. fabric8 and josdk run their sample against fabric8's mock server.
 */
public final class Demo {

  static final Duration RESYNC_PERIOD = Duration.ofSeconds(5);
  static final int OBJECTS = 8;
  /** The namespace of the demo's ConfigMaps on its own API server. */
  static final String NAMESPACE = "demo";
  /** The namespace of the echo controllers' ConfigMaps, which only they watch. */
  static final String ECHO_NAMESPACE = "demo-echoes";

  /**
   * The demo relists only this soon after its handlers' resync. client-java hands a relist's
   * notifications to the handlers that were due at the last resync tick, and its ticks skip handlers
   * at random (a tick a few milliseconds early finds none due): a relist after such a tick reaches no
   * handler. Right after a resync the demo's relists always reach both, so its reports do not depend
   * on timing.
   */
  static final Duration RELIST_AFTER_RESYNC = Duration.ofMillis(1_500);

  /** The log level a drift sets, without a watch event; the drift-repair controller sets it back. */
  static final String DRIFTED_LOG_LEVEL = "debug";

  private Demo() {}

  static final String USAGE =
      "usage: demo [--library client-java|fabric8|josdk] [--metrics-url URL] [--tls DIR] [--kubeconfig FILE | --in-cluster] [--seconds N]";

  /** Held: java.util.logging keeps loggers weakly, and a collected one forgets its level. */
  private static final java.util.logging.Logger MOCK_SERVER_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  public static void main(String[] args) throws Exception {
    quietStop();
    String metricsUrl = null;
    Path tls = null;
    String kubeconfig = null;
    boolean inCluster = false;
    long seconds = Long.MAX_VALUE;
    String library = "client-java";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--help", "-h" -> {
          System.out.println(USAGE);
          System.exit(0);
        }
        case "--metrics-url" -> metricsUrl = value(args, ++i);
        case "--tls" -> tls = Path.of(value(args, ++i));
        case "--kubeconfig" -> kubeconfig = value(args, ++i);
        case "--in-cluster" -> inCluster = true;
        case "--seconds" -> seconds = seconds(value(args, ++i));
        case "--library" -> library = value(args, ++i);
        default -> usage("unknown demo option " + args[i]);
      }
    }
    if (!library.equals("client-java") && !library.equals("fabric8") && !library.equals("josdk")) {
      usage("unknown library " + library);
    }
    if (kubeconfig != null && inCluster) {
      usage("--kubeconfig FILE or --in-cluster, not both");
    }
    if (!library.equals("client-java") && (kubeconfig != null || inCluster)) {
      usage((inCluster ? "--in-cluster" : "--kubeconfig") + " is for --library client-java: the " + library + " demo runs against fabric8's mock server");
    }
    String noEndpoint = AgentEndpoint.startedWithoutEndpoint();
    if (noEndpoint != null) {
      System.err.println("demo: " + noEndpoint);
      System.exit(1);
    }
    AgentEndpoint endpoint = new AgentEndpoint(metricsUrl, tls);
    StopSignal stop = StopSignal.install();
    if (library.equals("fabric8")) {
      Fabric8Demo.run(endpoint, seconds, stop);
    } else if (library.equals("josdk")) {
      JosdkDemo.run(endpoint, seconds, stop);
    } else if (inCluster || kubeconfig != null) {
      // A real cluster: in a pod (deploy/kustomize/sample-controller), or a kubeconfig's. One list first,
      // so that a cluster the demo cannot use is one line rather than the reflector's retries.
      ApiClient client = inCluster ? inClusterClient() : kubeconfigClient(kubeconfig);
      String cluster = inCluster ? "the cluster it runs in" : "the cluster in " + kubeconfig;
      String cannotList = cannotList(client);
      if (cannotList != null) {
        System.err.println("demo: cannot list the ConfigMaps of " + cluster + " (" + client.getBasePath() + "): " + cannotList);
        System.exit(1);
      }
      System.out.println("demo: watching ConfigMaps of " + cluster + " (no churn)");
      run(client, null, endpoint, seconds, stop);
    } else {
      try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
        for (int i = 0; i < OBJECTS; i++) {
          server.create(NAMESPACE, "settings-" + i, settings("0"));
        }
        System.out.println("demo: embedded API server at " + server.url() + " with " + OBJECTS + " ConfigMaps");
        ApiClient client = new ClientBuilder().setBasePath(server.url()).setReadTimeout(Duration.ZERO).build();
        run(client, server, endpoint, seconds, stop);
      }
    }
    System.exit(0);
  }

  /**
   * The client of the pod's service account (its token and the cluster's address), or one line on stderr and exit code 2 where there is
   * none: client-java's own {@code ClientBuilder.cluster()} throws a NumberFormatException outside a pod.
   */
  private static ApiClient inClusterClient() {
    String host = System.getenv("KUBERNETES_SERVICE_HOST");
    String port = System.getenv("KUBERNETES_SERVICE_PORT");
    if (host == null || host.isBlank() || port == null || port.isBlank()) {
      System.err.println(
          "demo: --in-cluster runs in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set here (outside a cluster, give --kubeconfig FILE)");
      System.exit(2);
    }
    try {
      return ClientBuilder.cluster().setReadTimeout(Duration.ZERO).build();
    } catch (IOException | RuntimeException e) {
      System.err.println("demo: --in-cluster: cannot use the pod's service account (/var/run/secrets/kubernetes.io/serviceaccount): " + inWords(e));
      System.exit(2);
      return null;
    }
  }

  /** The client of the kubeconfig's current context, or one line on stderr and exit code 2. */
  private static ApiClient kubeconfigClient(String kubeconfig) {
    try (Reader reader = readable(kubeconfig)) {
      return ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(reader)).setReadTimeout(Duration.ZERO).build();
    } catch (IOException e) {
      System.err.println("demo: cannot use the kubeconfig " + kubeconfig + ": " + inWords(e));
    } catch (ClassCastException | NullPointerException notTheShape) {
      System.err.println("demo: cannot use the kubeconfig " + kubeconfig + ": it is not a kubeconfig (YAML with clusters, users and contexts)");
    } catch (RuntimeException e) {
      System.err.println("demo: cannot use the kubeconfig " + kubeconfig + ": it is not a kubeconfig: " + inWords(e));
    }
    System.exit(2);
    return null;
  }

  /**
   * Lists one ConfigMap as the informer lists them (all namespaces), waiting at most {@link
   * #PROBE_TIMEOUT} for the answer: null when the cluster answers, else why not, in words. Without it
   * an unreachable cluster gave 12 s of the reflector's stack traces and an empty report, and exit 0.
   */
  static String cannotList(ApiClient client) {
    int readTimeout = client.getReadTimeout();
    client.setReadTimeout((int) PROBE_TIMEOUT.toMillis());
    try {
      ListOptions one = new ListOptions();
      one.setLimit(1);
      KubernetesApiResponse<V1ConfigMapList> answer =
          new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client).list(one);
      if (answer.isSuccess()) {
        return null;
      }
      String message = answer.getStatus() == null ? null : answer.getStatus().getMessage();
      return "HTTP " + answer.getHttpStatusCode() + (message == null || message.isBlank() ? "" : ": " + message);
    } catch (RuntimeException e) {
      // the client's IOException comes wrapped: refused, no such host, TLS, no answer in time
      return inWords(e);
    } finally {
      client.setReadTimeout(readTimeout);
    }
  }

  /** How long the first list of a real cluster may take to answer. */
  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

  /** What went wrong, in words for the end of one line: the innermost I/O problem, else the first line of the message. */
  private static String inWords(Throwable e) {
    IOException io = null;
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof java.net.SocketTimeoutException) {
        return "no answer within " + PROBE_TIMEOUT.toSeconds() + " s";
      }
      if (t instanceof IOException found) {
        io = found;
      }
    }
    if (io != null) {
      return Problems.inWords(io);
    }
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("").strip();
    return message.replaceAll("([a-z_$][\\w$]*\\.)+[A-Z][\\w$]*: ", "");
  }

  /**
   * client-java's listener and controller threads log their interruption at ERROR with a stack trace
   * when the demo stops them, and fabric8's mock server logs every request: neither is news here. Nor
   * is the libraries' INFO (every list and watch, every controller's exit): the demo started with
   * {@code java -jar}, without {@code ./demo}'s settings, logs WARN and above too.
   */
  private static void quietStop() {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    for (String logger : new String[] {"io.kubernetes.client.informer.cache.ProcessorListener", "io.kubernetes.client.informer.cache.Controller",
        "io.kubernetes.client.extended.controller.ControllerManager"}) {
      if (System.getProperty("org.slf4j.simpleLogger.log." + logger) == null) {
        System.setProperty("org.slf4j.simpleLogger.log." + logger, "off");
      }
    }
    MOCK_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  /** The kubeconfig file, or one line on stderr and exit code 2 when it cannot be read. */
  private static Reader readable(String kubeconfig) {
    try {
      return Files.newBufferedReader(Path.of(kubeconfig));
    } catch (IOException e) {
      System.err.println("demo: cannot read the kubeconfig " + kubeconfig + ": " + Problems.inWords(e));
      System.exit(2);
      return null;
    }
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      usage(args[i - 1] + " needs a value");
    }
    return args[i];
  }

  private static long seconds(String text) {
    try {
      long seconds = Long.parseLong(text);
      if (seconds > 0) {
        return seconds;
      }
    } catch (NumberFormatException notANumber) {
      // said below
    }
    usage("--seconds takes a whole number of seconds above zero, not '" + text + "'");
    return 0;
  }

  static void usage(String problem) {
    System.err.println("demo: " + problem + "; " + USAGE);
    System.exit(2);
  }

  private static void run(ApiClient client, EmbeddedApiServer server, AgentEndpoint endpoint, long seconds, StopSignal stop) throws Exception {
    SharedInformerFactory factory = new SharedInformerFactory(client);
    SharedIndexInformer<V1ConfigMap> informer =
        factory.sharedIndexInformerFor(
            new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client),
            V1ConfigMap.class,
            RESYNC_PERIOD.toMillis());
    ResyncSeen resyncSeen = new ResyncSeen();
    // The drift-repair controller writes: only to the demo's own API server, never to a user's cluster.
    boolean driftRepair = server != null;
    try (SampleController controllers = new SampleController(client, factory, informer, RESYNC_PERIOD, resyncSeen, driftRepair)) {
      controllers.start();
      System.out.println(
          "demo: controllers " + SampleController.EVERY_UPDATE + (driftRepair ? ", " : " and ") + SampleController.RV_FILTER
              + (driftRepair ? " and " + SampleController.DRIFT_REPAIR : "") + " running, resync every " + RESYNC_PERIOD.toSeconds()
              + " s; " + endpoint.where());
      Random random = new Random(42);
      Random drifts = new Random(7); // apart from the churn's, so the churn changes the same ConfigMaps as without drifts
      DemoReport report = new DemoReport(endpoint);
      // They write what they watch: only on the demo's own API server, never on a user's cluster.
      // An API server of their own: the demo's expired watches and drifts do not reach them.
      EmbeddedApiServer echoServer = null;
      EchoControllers echoes = null;
      if (server != null) {
        echoServer = EmbeddedApiServer.start();
        echoServer.create(ECHO_NAMESPACE, EchoControllers.STAMPED, Map.of());
        echoServer.create(ECHO_NAMESPACE, EchoControllers.SETTLED, Map.of());
        echoes = new EchoControllers(new ClientBuilder().setBasePath(echoServer.url()).setReadTimeout(Duration.ZERO).build(), ECHO_NAMESPACE);
        echoes.start();
        System.out.println(
            "demo: controllers " + EchoControllers.STAMPER + " (stamps the time on " + ECHO_NAMESPACE + "/" + EchoControllers.STAMPED
                + " on every reconcile, " + EchoControllers.STAMP_BOUND + " times at most) and " + EchoControllers.SETTLER + " (labels "
                + ECHO_NAMESPACE + "/" + EchoControllers.SETTLED + " when it is not) running: their writes come back to them");
      }
      long start = System.nanoTime();
      boolean relistDue = false;
      boolean driftDue = false;
      String drifted = null;
      for (long tick = 1; (System.nanoTime() - start) / 1_000_000_000L < seconds && !stop.await(Duration.ofSeconds(1)); tick++) {
        // Until a resync's reconcile repairs it, the drifted ConfigMap gets no change and the informer no
        // relist: either would bring the drift to the handlers as a change, and it is there for a resync to find.
        String unrepaired = server != null && drifted != null && stillDrifted(server, drifted) ? drifted : null;
        if (server != null && tick % 3 == 0) {
          String name = "settings-" + random.nextInt(OBJECTS);
          if (name.equals(unrepaired)) {
            name = "settings-" + (Integer.parseInt(name.substring("settings-".length())) + 1) % OBJECTS;
          }
          server.update("demo", name, settings(Long.toString(tick)));
        }
        relistDue |= tick % 20 == 10;
        if (server != null && relistDue && resyncSeen.within(RELIST_AFTER_RESYNC) && unrepaired == null) {
          server.expireWatches();
          relistDue = false;
          System.out.println("demo: expired the open watches: the informer relists");
        }
        driftDue |= tick % 10 == 5;
        if (server != null && driftDue && !relistDue && unrepaired == null) {
          drifted = "settings-" + drifts.nextInt(OBJECTS);
          Map<String, String> data = new java.util.LinkedHashMap<>(server.get("demo", drifted).orElseThrow().getData());
          data.put(SampleController.LOG_LEVEL, DRIFTED_LOG_LEVEL);
          // The API server changes it and no watch hears of it: the informer's cache keeps the old copy.
          server.updateWithoutEvent("demo", drifted, data);
          driftDue = false;
          System.out.println("demo: " + drifted + " drifted without a watch event: the next resync's reconcile repairs it");
        }
        if (tick % 10 == 0) {
          report.print("reconciles " + controllers.reconciles() + " (the controllers' own count)");
        }
      }
      report.printFinal();
      if (echoes != null) {
        echoes.close();
        echoServer.close();
      }
    }
  }


  /** When the demo's handlers last saw a resync (the same instance as old and new object). */
  private static boolean stillDrifted(EmbeddedApiServer server, String name) {
    return server.get("demo", name).map(c -> DRIFTED_LOG_LEVEL.equals(c.getData().get(SampleController.LOG_LEVEL))).orElse(false);
  }

  /** A demo ConfigMap's data: its revision, and the log level the drift-repair controller keeps. */
  private static Map<String, String> settings(String revision) {
    return Map.of("revision", revision, SampleController.LOG_LEVEL, SampleController.DESIRED_LOG_LEVEL);
  }

  private static final class ResyncSeen implements SampleController.WatchObserver {
    private volatile long lastNanos = System.nanoTime() - Long.MAX_VALUE / 2;

    @Override
    public void updated(String controller, V1ConfigMap oldObject, V1ConfigMap newObject, boolean enqueue) {
      if (oldObject == newObject) {
        lastNanos = System.nanoTime();
      }
    }

    @Override
    public void added(String controller, V1ConfigMap object) {}

    @Override
    public void deleted(String controller, V1ConfigMap object) {}

    boolean within(Duration recent) {
      return System.nanoTime() - lastNanos <= recent.toNanos();
    }
  }
}
