package dev.resyncmeter.agent.fabric8;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.api.InstrumentationUnit;
import dev.resyncmeter.agent.api.LibraryPresence;
import dev.resyncmeter.agent.api.WeavingRules;

/**
 * fabric8's informer (7.0 to 8.0): where it is made ({@code DefaultSharedIndexInformer}), where its
 * notifications are made ({@code ProcessorStore}: watch events, list pages, resyncs), delivered
 * ({@code ProcessorListener.add}) and handled (there too; after an attach, in every fabric8
 * {@code ResourceEventHandler}), and why
 * its reflector lists again ({@code Reflector$ReflectorWatcher.onClose}).
 */
public final class Fabric8Instrumentation implements InstrumentationUnit {

  static final String PACKAGE = "io.fabric8.kubernetes.client.informers.";
  public static final String RESOURCE_EVENT_HANDLER = PACKAGE + "ResourceEventHandler";

  @Override
  public WeavingRules install(WeavingRules builder) {
    String cache = PACKAGE + "impl.cache.";
    return builder
        .type(PACKAGE + "impl.DefaultSharedIndexInformer")
        .transform(
            builder.layoutChecked()
                .field("apiTypeClass", Class.class.getName())
                .field("processor", cache + "SharedProcessor")
                .field("processorStore", cache + "ProcessorStore")
                .field("reflector", cache + "Reflector")
                .constructor(4, Fabric8Advice.InformerConstructor.class))
        .type(cache + "SharedProcessor")
        .transform(
            builder.layoutChecked()
                .method("addProcessorListener", 3, Fabric8Advice.AddProcessorListener.class)
                .advice(
                    "distribute(Notification, boolean)",
                    named("distribute").and(takesArguments(2)).and(takesArgument(0, named(cache + "ProcessorListener$Notification"))),
                    Fabric8Advice.Distribute.class,
                    true))
        .type(cache + "ProcessorListener")
        .transform(
            builder.layoutChecked()
                .field("handler", RESOURCE_EVENT_HANDLER)
                .constructor(2, Fabric8Advice.ListenerConstructor.class)
                // the delivery first: the handler call inside it finds the delivering listener
                .method("add", 1, Fabric8Advice.Delivery.class)
                .method("add", 1, Fabric8Advice.HandlerCallSite.class))
        .type(cache + "ProcessorStore")
        .transform(
            builder.layoutChecked()
                .field("synced", "java.util.concurrent.atomic.AtomicBoolean")
                .advice(
                    "update(List)",
                    named("update").and(takesArguments(1)).and(takesArgument(0, java.util.List.class)),
                    Fabric8Advice.ListPage.class,
                    true)
                .advice(
                    "syncList(Set) or retainAll(Set, Consumer)",
                    named("syncList").and(takesArguments(1)).or(named("retainAll").and(takesArguments(2))),
                    Fabric8Advice.ListSynced.class,
                    true)
                .method("resync", 0, Fabric8Advice.Resync.class))
        .type(cache + "Reflector$ReflectorWatcher")
        .transform(
            builder.layoutChecked()
                .field("this$0", cache + "Reflector")
                .advice(
                    "onClose(WatcherException)",
                    named("onClose").and(takesArguments(1)),
                    Fabric8Advice.WatchClosed.class,
                    true))
        // After an attach only (Weaving drops this rule otherwise; started with the JVM, the handler
        // call is measured in ProcessorListener.add): any handler class of the host's, JOSDK's event
        // sources among them. A handler need not override every method, so none is required; generic
        // ones also have bridge methods.
        .implementationsOf(RESOURCE_EVENT_HANDLER, LibraryPresence.FABRIC8_HANDLER)
        .transform(
            builder.layoutChecked()
                .handlerMethods(Fabric8Advice.HandlerAddOrDelete.class, Fabric8Advice.HandlerUpdate.class));
  }
}
