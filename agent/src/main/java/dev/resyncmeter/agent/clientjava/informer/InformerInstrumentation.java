package dev.resyncmeter.agent.clientjava.informer;

import static net.bytebuddy.matcher.ElementMatchers.not;

import dev.resyncmeter.agent.api.InstrumentationUnit;
import dev.resyncmeter.agent.api.LibraryPresence;
import dev.resyncmeter.agent.api.WeavingRules;

/**
 * client-java's informer: where notifications are made ({@code SharedProcessor.distribute}), where
 * they wait and are handed to the handler ({@code ProcessorListener}: its call sites in {@code run()},
 * see {@link HandlerCallSites}), and, after an attach, every {@code ResourceEventHandler} that receives them.
 */
public final class InformerInstrumentation implements InstrumentationUnit {

  static final String PACKAGE = "io.kubernetes.client.informer.";
  static final String RESOURCE_EVENT_HANDLER = PACKAGE + "ResourceEventHandler";

  @Override
  public WeavingRules install(WeavingRules builder) {
    return builder
        .type(PACKAGE + "impl.DefaultSharedIndexInformer")
        .transform(
            builder.layoutChecked()
                .field("processor", PACKAGE + "cache.SharedProcessor")
                .field("controller", PACKAGE + "cache.Controller")
                .field("resyncCheckPeriodMillis", "long")
                .constructor(6, InformerAdvice.InformerConstructor.class)
                .method("handleDeltas", 1, InformerAdvice.HandleDeltas.class))
        .type(PACKAGE + "cache.ProcessorListener")
        .transform(
            builder.layoutChecked()
                // run() calls this.handler: its call sites are where handler calls are measured
                .field("handler", RESOURCE_EVENT_HANDLER)
                .constructor(2, InformerAdvice.ListenerConstructor.class)
                .method("run", 0, InformerAdvice.ListenerRun.class)
                .method("add", 1, InformerAdvice.ListenerAdd.class)
                .visitor(HandlerCallSites.RUN))
        .type(NotificationFields.UPDATE)
        .transform(
            builder.layoutChecked()
                .field("oldObj", Object.class.getName())
                .field("newObj", Object.class.getName())
                .method("getNewObj", 0, InformerAdvice.UpdateTaken.class))
        .type(PACKAGE + "cache.SharedProcessor")
        .transform(
            builder.layoutChecked()
                .method("addListenerLocked", 1, InformerAdvice.AddListener.class)
                .method("distribute", 2, InformerAdvice.Distribute.class))
        .type(PACKAGE + "cache.DeltaFIFO")
        .transform(builder.layoutChecked().method("resync", 0, InformerAdvice.Resync.class))
        .type(PACKAGE + "cache.ReflectorRunnable")
        .transform(
            builder.layoutChecked()
                .field("apiTypeClass", Class.class.getName())
                .field("lastSyncResourceVersion", String.class.getName())
                .field("isLastSyncResourceVersionUnavailable", "boolean")
                .method("syncWith", 2, InformerAdvice.SyncWith.class))
        // After an attach only (Weaving drops this rule otherwise): any handler class of the host's (a
        // hierarchy walk that other agents' injected interfaces cannot fail), as a listener thread that
        // runs already never picks up the woven run(); generic ones also have a bridge method that
        // calls the real one.
        // A handler need not override every method, so none is required.
        .implementationsOf(RESOURCE_EVENT_HANDLER, LibraryPresence.CLIENT_JAVA_HANDLER)
        .transform(
            builder.layoutChecked()
                .handlerMethods(InformerAdvice.HandlerAddOrDelete.class, InformerAdvice.HandlerUpdate.class));
  }
}
