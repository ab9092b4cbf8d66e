package dev.resyncmeter.agent.clientjava;

import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part.Observation;
import dev.resyncmeter.agent.api.Part;
import java.util.List;

/**
 * client-java as the agent instruments it: the library (client-java and client-java-extended) and its
 * four parts, each woven by the unit of its own folder. Read in {@code premain}: no ByteBuddy here.
 */
public final class ClientJava {

  private static final String INFORMER_PACKAGE = "io.kubernetes.client.informer.";
  private static final String EXTENDED_PACKAGE = "io.kubernetes.client.extended.";

  public static final Library LIBRARY =
      new Library(
          "client-java",
          "client-java",
          "io/kubernetes/client/informer/SharedInformerFactory.class",
          "META-INF/maven/io.kubernetes/client-java/pom.properties",
          // thousands of generated models and API classes, none of them a handler
          "io.kubernetes.client.openapi.",
          "io.kubernetes.client.proto.",
          "io.kubernetes.client.custom.",
          // client-java's own dependencies
          "okhttp3.",
          "okio.",
          "kotlin.",
          "kotlinx.",
          "com.google.gson.",
          "io.gsonfire.",
          "com.google.protobuf.",
          "org.apache.commons.",
          "org.bouncycastle.",
          "org.jose4j.",
          "org.yaml.snakeyaml.",
          "io.prometheus.",
          "io.github.bucket4j.",
          "com.github.benmanes.caffeine.",
          "io.swagger.",
          "com.fasterxml.jackson.",
          "org.slf4j.");

  /** Notifications where they are made, wait and are handled, and every {@code ResourceEventHandler}. */
  public static final Part INFORMER =
      Part.of(LIBRARY, "informer", "clientjava-informer")
          .wovenBy("dev.resyncmeter.agent.clientjava.informer.InformerInstrumentation")
          .byName(
              INFORMER_PACKAGE + "impl.DefaultSharedIndexInformer",
              INFORMER_PACKAGE + "cache.ProcessorListener",
              INFORMER_PACKAGE + "cache.ProcessorListener$UpdateNotification",
              INFORMER_PACKAGE + "cache.SharedProcessor",
              INFORMER_PACKAGE + "cache.DeltaFIFO",
              INFORMER_PACKAGE + "cache.ReflectorRunnable")
          .andEveryImplementationOf(INFORMER_PACKAGE + "ResourceEventHandler")
          .othersCountOn(Observation.HANDLER_CALLS)
          .build();

  /** {@code DefaultWorkQueue} and the delaying and rate-limiting queues built on it. */
  public static final Part WORKQUEUE =
      Part.of(LIBRARY, "workqueue", "clientjava-workqueue")
          .wovenBy("dev.resyncmeter.agent.clientjava.workqueue.WorkQueueInstrumentation")
          .byName(
              EXTENDED_PACKAGE + "workqueue.DefaultWorkQueue",
              EXTENDED_PACKAGE + "workqueue.DefaultDelayingQueue",
              EXTENDED_PACKAGE + "workqueue.DefaultRateLimitingQueue")
          .othersCountOn(Observation.QUEUE_ADDS)
          .build();

  /** The controller framework: which controller each builder-made handler feeds, and its reconciles. */
  public static final Part CONTROLLER =
      Part.of(LIBRARY, "controller", "clientjava-controller")
          .wovenBy("dev.resyncmeter.agent.clientjava.controller.ControllerInstrumentation")
          .byName(
              EXTENDED_PACKAGE + "controller.DefaultControllerWatch",
              EXTENDED_PACKAGE + "controller.DefaultController",
              EXTENDED_PACKAGE + "controller.reconciler.Result")
          .build();

  /** API requests, sent through an {@code ApiClient}'s OkHttp client. */
  public static final Part REQUESTS =
      Part.of(LIBRARY, "requests", "clientjava-requests")
          .wovenBy("dev.resyncmeter.agent.clientjava.request.RequestInstrumentation")
          .byName("io.kubernetes.client.openapi.ApiClient", "okhttp3.internal.connection.RealCall")
          .othersCountOn(Observation.API_WRITES)
          .build();

  /** In the start line's order. */
  public static final List<Part> PARTS = List.of(INFORMER, WORKQUEUE, CONTROLLER, REQUESTS);

  private ClientJava() {}
}
