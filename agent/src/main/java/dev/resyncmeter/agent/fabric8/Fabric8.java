package dev.resyncmeter.agent.fabric8;

import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part.Observation;
import dev.resyncmeter.agent.api.Part;
import java.util.List;

/**
 * fabric8's Kubernetes client (7.0 to 8.0) as the agent instruments it: its informers and its API
 * requests, each woven by the unit of its own folder. Read in {@code premain}: no ByteBuddy here.
 */
public final class Fabric8 {

  private static final String INFORMERS = "io.fabric8.kubernetes.client.informers.";

  public static final Library LIBRARY =
      new Library(
          "fabric8",
          "fabric8",
          "io/fabric8/kubernetes/client/informers/impl/DefaultSharedIndexInformer.class",
          "META-INF/maven/io.fabric8/kubernetes-client/pom.properties",
          // thousands of model classes, none of them a handler
          "io.fabric8.kubernetes.api.model.");

  /** Where informers and their notifications are made, delivered and handled, and why they list again. */
  public static final Part INFORMER =
      Part.of(LIBRARY, "informer", "fabric8-informer")
          .wovenBy("dev.resyncmeter.agent.fabric8.Fabric8Instrumentation")
          .byName(
              INFORMERS + "impl.DefaultSharedIndexInformer",
              INFORMERS + "impl.cache.SharedProcessor",
              INFORMERS + "impl.cache.ProcessorListener",
              INFORMERS + "impl.cache.ProcessorStore",
              INFORMERS + "impl.cache.Reflector$ReflectorWatcher")
          .andEveryImplementationOf(INFORMERS + "ResourceEventHandler")
          .othersCountOn(Observation.HANDLER_CALLS)
          .build();

  /** API requests, whichever of fabric8's HTTP clients sends them, and what each write changed. */
  public static final Part REQUESTS =
      Part.of(LIBRARY, "requests", "fabric8-requests")
          .wovenBy("dev.resyncmeter.agent.fabric8.request.Fabric8RequestInstrumentation")
          .byName(
              "io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientImpl",
              "io.fabric8.kubernetes.client.okhttp.OkHttpClientImpl",
              "io.fabric8.kubernetes.client.vertx.VertxHttpClient",
              "io.fabric8.kubernetes.client.vertx5.Vertx5HttpClient",
              "io.fabric8.kubernetes.client.jetty.JettyHttpClient",
              "io.fabric8.kubernetes.client.dsl.internal.OperationSupport")
          .othersCountOn(Observation.API_WRITES)
          .build();

  /** In the start line's order. */
  public static final List<Part> PARTS = List.of(INFORMER, REQUESTS);

  private Fabric8() {}
}
