package dev.resyncmeter.agent.clientjava.informer;

import dev.resyncmeter.agent.WeavingRules;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isBridge;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.InstrumentationUnit;
import dev.resyncmeter.agent.LayoutCheckedAdvice;
import dev.resyncmeter.agent.UnitSwitch;
import dev.resyncmeter.agent.LibraryPresence;
import dev.resyncmeter.agent.clientjava.ClientJava;

/**
 * client-java's informer: where notifications are made ({@code SharedProcessor.distribute}), where
 * they wait ({@code ProcessorListener}), and every {@code ResourceEventHandler} that receives them.
 */
public final class InformerInstrumentation implements InstrumentationUnit {

  static final String PACKAGE = "io.kubernetes.client.informer.";
  static final String RESOURCE_EVENT_HANDLER = PACKAGE + "ResourceEventHandler";

  /** Off when a class of client-java's informer has a shape this agent does not know. */
  static final UnitSwitch SWITCH = ClientJava.INFORMER.unitSwitch();

  @Override
  public WeavingRules install(WeavingRules builder) {
    return builder
        .type(PACKAGE + "impl.DefaultSharedIndexInformer")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .field("processor", PACKAGE + "cache.SharedProcessor")
                .field("controller", PACKAGE + "cache.Controller")
                .field("resyncCheckPeriodMillis", "long")
                .constructor(6, InformerAdvice.InformerConstructor.class)
                .method("handleDeltas", 1, InformerAdvice.HandleDeltas.class))
        .type(PACKAGE + "cache.ProcessorListener")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .constructor(2, InformerAdvice.ListenerConstructor.class)
                .method("run", 0, InformerAdvice.ListenerRun.class)
                .method("add", 1, InformerAdvice.ListenerAdd.class))
        .type(NotificationFields.UPDATE)
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .field("oldObj", Object.class.getName())
                .field("newObj", Object.class.getName())
                .method("getNewObj", 0, InformerAdvice.UpdateTaken.class))
        .type(PACKAGE + "cache.SharedProcessor")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .method("addListenerLocked", 1, InformerAdvice.AddListener.class)
                .method("distribute", 2, InformerAdvice.Distribute.class))
        .type(PACKAGE + "cache.DeltaFIFO")
        .transform(LayoutCheckedAdvice.of(SWITCH).method("resync", 0, InformerAdvice.Resync.class))
        .type(PACKAGE + "cache.ReflectorRunnable")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .field("apiTypeClass", Class.class.getName())
                .field("lastSyncResourceVersion", String.class.getName())
                .field("isLastSyncResourceVersionUnavailable", "boolean")
                .method("syncWith", 2, InformerAdvice.SyncWith.class))
        // Any handler class of the host's (a hierarchy walk that other agents' injected interfaces cannot
        // fail); generic ones also have a bridge method that calls the real one.
        // A handler need not override every method, so none is required.
        .implementationsOf(RESOURCE_EVENT_HANDLER, LibraryPresence.CLIENT_JAVA_HANDLER)
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .advice("onAdd", handlerMethod("onAdd", 1), InformerAdvice.HandlerAdd.class, false)
                .advice("onUpdate", handlerMethod("onUpdate", 2), InformerAdvice.HandlerUpdate.class, false)
                .advice("onDelete", handlerMethod("onDelete", 2), InformerAdvice.HandlerDelete.class, false));
  }

  private static net.bytebuddy.matcher.ElementMatcher.Junction<net.bytebuddy.description.method.MethodDescription> handlerMethod(
      String name, int arguments) {
    var matcher = named(name).and(takesArguments(arguments)).and(not(isBridge())).and(not(isAbstract()));
    return name.equals("onDelete") ? matcher.and(takesArgument(1, boolean.class)) : matcher;
  }
}
