package dev.resyncmeter.agent.clientjava.informer;

import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isBridge;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.InstrumentationUnit;
import dev.resyncmeter.agent.clientjava.ClientJavaPresence;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;

/**
 * client-java's informer: where notifications are made ({@code SharedProcessor.distribute}), where
 * they wait ({@code ProcessorListener}), and every {@code ResourceEventHandler} that receives them.
 */
public final class InformerInstrumentation implements InstrumentationUnit {

  static final String PACKAGE = "io.kubernetes.client.informer.";
  static final String RESOURCE_EVENT_HANDLER = PACKAGE + "ResourceEventHandler";

  @Override
  public String name() {
    return "informer";
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    return builder
        .type(named(PACKAGE + "impl.DefaultSharedIndexInformer"))
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(Advice.to(InformerAdvice.InformerConstructor.class).on(isConstructor().and(takesArguments(6)))))
        .type(named(PACKAGE + "cache.ProcessorListener"))
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(Advice.to(InformerAdvice.ListenerConstructor.class).on(isConstructor().and(takesArguments(2))))
                    .visit(Advice.to(InformerAdvice.ListenerRun.class).on(named("run").and(takesArguments(0))))
                    .visit(Advice.to(InformerAdvice.ListenerAdd.class).on(named("add").and(takesArguments(1)))))
        .type(named(PACKAGE + "cache.ProcessorListener$UpdateNotification"))
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(Advice.to(InformerAdvice.UpdateTaken.class).on(named("getNewObj"))))
        .type(named(PACKAGE + "cache.SharedProcessor"))
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(Advice.to(InformerAdvice.AddListener.class).on(named("addListenerLocked").and(takesArguments(1))))
                    .visit(Advice.to(InformerAdvice.Distribute.class).on(named("distribute").and(takesArguments(2)))))
        .type(named(PACKAGE + "cache.DeltaFIFO"))
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(Advice.to(InformerAdvice.Resync.class).on(named("resync").and(takesArguments(0)))))
        .type(named(PACKAGE + "cache.ReflectorRunnable"))
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(Advice.to(InformerAdvice.SyncWith.class).on(named("syncWith").and(takesArguments(2)))))
        // Any handler class of the host's; generic ones also have a bridge method that calls the real one.
        .type(hasSuperType(named(RESOURCE_EVENT_HANDLER)).and(not(isInterface())), ClientJavaPresence.INFORMER)
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(Advice.to(InformerAdvice.HandlerAdd.class).on(handlerMethod("onAdd", 1)))
                    .visit(Advice.to(InformerAdvice.HandlerUpdate.class).on(handlerMethod("onUpdate", 2)))
                    .visit(Advice.to(InformerAdvice.HandlerDelete.class).on(handlerMethod("onDelete", 2))));
  }

  private static net.bytebuddy.matcher.ElementMatcher.Junction<net.bytebuddy.description.method.MethodDescription> handlerMethod(
      String name, int arguments) {
    var matcher = named(name).and(takesArguments(arguments)).and(not(isBridge())).and(not(isAbstract()));
    return name.equals("onDelete") ? matcher.and(takesArgument(1, boolean.class)) : matcher;
  }
}
