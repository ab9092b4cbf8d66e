package dev.resyncmeter.examples.demo;

import dev.resyncmeter.examples.apiserver.EmbeddedApiServer;
import dev.resyncmeter.examples.controller.SampleController;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.io.FileReader;
import java.io.Reader;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Random;

/**
 * The demo: the sample controllers against the embedded API server (or a real cluster with
 * {@code --kubeconfig}), a little churn of ConfigMaps, an expired watch now and then, and every few
 * seconds a summary read from the agent's {@code /metrics}. In a pod, {@code --in-cluster} watches the
 * cluster's ConfigMaps with the pod's service account.
 *
 * <p>{@code demo [--library client-java|fabric8|josdk] [--metrics-url URL] [--kubeconfig FILE | --in-cluster] [--seconds N]}; runs
 * until stopped, or N seconds. fabric8 and josdk run their sample against fabric8's mock server.
 */
public final class Demo {

  static final Duration RESYNC_PERIOD = Duration.ofSeconds(5);
  static final int OBJECTS = 8;

  private Demo() {}

  public static void main(String[] args) throws Exception {
    String metricsUrl = "http://127.0.0.1:9464/metrics";
    String kubeconfig = null;
    boolean inCluster = false;
    long seconds = Long.MAX_VALUE;
    String library = "client-java";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--metrics-url" -> metricsUrl = args[++i];
        case "--kubeconfig" -> kubeconfig = args[++i];
        case "--in-cluster" -> inCluster = true;
        case "--seconds" -> seconds = Long.parseLong(args[++i]);
        case "--library" -> library = args[++i];
        default -> {
          System.err.println("unknown demo option " + args[i] + "; usage: demo [--library client-java|fabric8|josdk] [--metrics-url URL] [--kubeconfig FILE | --in-cluster] [--seconds N]");
          System.exit(2);
        }
      }
    }
    if (library.equals("fabric8") || library.equals("josdk")) {
      if (library.equals("fabric8")) {
        Fabric8Demo.run(metricsUrl, seconds);
      } else {
        JosdkDemo.run(metricsUrl, seconds);
      }
      System.exit(0);
    } else if (!library.equals("client-java")) {
      System.err.println("unknown library " + library + "; usage: demo [--library client-java|fabric8|josdk] ...");
      System.exit(2);
    }
    if (inCluster) {
      // In a pod: the service account's token and the cluster's address (deploy/kustomize/sample-controller).
      ApiClient client = ClientBuilder.cluster().setReadTimeout(Duration.ZERO).build();
      System.out.println("demo: watching ConfigMaps of the cluster it runs in (no churn)");
      run(client, null, metricsUrl, seconds);
    } else if (kubeconfig != null) {
      try (Reader reader = new FileReader(kubeconfig)) {
        ApiClient client = ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(reader)).setReadTimeout(Duration.ZERO).build();
        System.out.println("demo: watching ConfigMaps of the cluster in " + kubeconfig + " (no churn)");
        run(client, null, metricsUrl, seconds);
      }
    } else {
      try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
        for (int i = 0; i < OBJECTS; i++) {
          server.create("demo", "settings-" + i, Map.of("revision", "0"));
        }
        System.out.println("demo: embedded API server at " + server.url() + " with " + OBJECTS + " ConfigMaps");
        ApiClient client = new ClientBuilder().setBasePath(server.url()).setReadTimeout(Duration.ZERO).build();
        run(client, server, metricsUrl, seconds);
      }
    }
    System.exit(0);
  }

  private static void run(ApiClient client, EmbeddedApiServer server, String metricsUrl, long seconds) throws Exception {
    SharedInformerFactory factory = new SharedInformerFactory(client);
    SharedIndexInformer<V1ConfigMap> informer =
        factory.sharedIndexInformerFor(
            new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client),
            V1ConfigMap.class,
            RESYNC_PERIOD.toMillis());
    try (SampleController controllers = new SampleController(factory, informer, RESYNC_PERIOD, SampleController.WatchObserver.NONE)) {
      controllers.start();
      System.out.println(
          "demo: controllers " + SampleController.EVERY_UPDATE + " and " + SampleController.RV_FILTER
              + " running, resync every " + RESYNC_PERIOD.toSeconds() + " s; metrics at " + metricsUrl);
      Random random = new Random(42);
      long start = System.nanoTime();
      for (long tick = 1; (System.nanoTime() - start) / 1_000_000_000L < seconds; tick++) {
        Thread.sleep(1_000);
        if (server != null && tick % 3 == 0) {
          server.update("demo", "settings-" + random.nextInt(OBJECTS), Map.of("revision", Long.toString(tick)));
        }
        if (server != null && tick % 20 == 0) {
          server.expireWatches();
          System.out.println("demo: expired the open watches: the informer relists");
        }
        if (tick % 10 == 0) {
          printSummary(metricsUrl, "reconciles " + controllers.reconciles());
        }
      }
    }
  }

  static void printSummary(String metricsUrl, String headline) {
    String now = LocalTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
    try {
      System.out.print("[" + now + "] " + headline + "; " + MetricsSummary.render(MetricsSummary.fetch(metricsUrl)));
    } catch (Exception e) {
      System.out.println(
          "[" + now + "] cannot read " + metricsUrl + " (" + e + "): is the agent attached (-javaagent) on that port?");
    }
  }
}
