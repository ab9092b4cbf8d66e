package dev.resyncmeter.agent.josdk;

import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part;
import java.util.List;

/**
 * The Java Operator SDK (5.x) as the agent instruments it: one part, its reconciles by trigger. Read
 * in {@code premain}: no ByteBuddy here.
 */
public final class Josdk {

  private static final String PROCESSING = "io.javaoperatorsdk.operator.processing.";

  public static final Library LIBRARY =
      new Library(
          "JOSDK",
          "josdk",
          "io/javaoperatorsdk/operator/processing/event/EventProcessor.class",
          "META-INF/maven/io.javaoperatorsdk/operator-framework-core/pom.properties");

  /** Where events come from and wait, and the reconciles that run for them. */
  public static final Part RECONCILER =
      Part.of(LIBRARY, "reconciler", "josdk-reconciler")
          .wovenBy("dev.resyncmeter.agent.josdk.JosdkInstrumentation")
          .byName(
              PROCESSING + "Controller",
              PROCESSING + "event.EventProcessor",
              PROCESSING + "event.EventProcessor$ReconcilerExecutor",
              PROCESSING + "event.ResourceState",
              PROCESSING + "event.source.timer.TimerEventSource$EventProducerTimeTask",
              // fabric8 handlers, which fabric8's part weaves too: JOSDK's advice goes beyond their handler methods
              PROCESSING + "event.source.informer.InformerEventSource",
              PROCESSING + "event.source.controller.ControllerEventSource")
          .build();

  public static final List<Part> PARTS = List.of(RECONCILER);

  private Josdk() {}
}
