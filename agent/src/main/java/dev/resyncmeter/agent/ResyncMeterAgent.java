package dev.resyncmeter.agent;

import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;

import dev.resyncmeter.agent.clientjava.ClientJavaVersion;
import dev.resyncmeter.agent.clientjava.controller.ControllerInstrumentation;
import dev.resyncmeter.agent.clientjava.informer.InformerInstrumentation;
import dev.resyncmeter.agent.clientjava.workqueue.WorkQueueInstrumentation;
import dev.resyncmeter.collector.MetricsServer;
import dev.resyncmeter.collector.ResyncMetrics;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.Nexus;
import net.bytebuddy.dynamic.loading.ClassInjector;
import net.bytebuddy.dynamic.scaffold.MethodGraph;
import net.bytebuddy.utility.JavaModule;

/**
 * The agent's entry: {@code -javaagent} ({@link #premain}) or attach ({@link #agentmain}). It starts
 * the collector and its endpoint, then weaves the instrumentation units. Whatever goes wrong here
 * costs the host one line on stderr, never its start.
 */
public final class ResyncMeterAgent {

  static final List<InstrumentationUnit> CLIENT_JAVA_UNITS =
      List.of(new InformerInstrumentation(), new WorkQueueInstrumentation(), new ControllerInstrumentation());

  private static final AtomicBoolean STARTED = new AtomicBoolean();

  private ResyncMeterAgent() {}

  public static void premain(String args, Instrumentation instrumentation) {
    start(args, instrumentation);
  }

  public static void agentmain(String args, Instrumentation instrumentation) {
    start(args, instrumentation);
  }

  private static void start(String args, Instrumentation instrumentation) {
    try {
      // First: Micrometer logs through our SLF4J too, and the binding reads its settings only once.
      AgentLog.get();
      if (!STARTED.compareAndSet(false, true)) {
        AgentLog.get().warn("already running in this JVM; the second start is ignored");
        return;
      }
      AgentArguments arguments = AgentArguments.parse(args, System.getenv());
      for (String problem : arguments.problems()) {
        AgentLog.get().warn(problem);
      }
      ResyncMetrics metrics = new ResyncMetrics();
      AgentMetrics.install(metrics);
      for (InstrumentationUnit unit : CLIENT_JAVA_UNITS) {
        UnitSwitch unitSwitch = unit.unitSwitch();
        metrics.instrumentation(unitSwitch.component(), () -> !unitSwitch.isOff());
      }
      IdentityWeakMap.startCleaning();
      String serving = serve(arguments, metrics);
      install(instrumentation);
      AgentLog.get().info("resync-meter {} {}; {}", version(), serving, clientLibraries(metrics));
    } catch (Throwable t) {
      try {
        System.err.println("[resync-meter] failed to start, the application runs without it: " + t);
      } catch (Throwable ignored) {
        // nothing more to do without harming the host
      }
    }
  }

  private static String serve(AgentArguments arguments, ResyncMetrics metrics) {
    try {
      MetricsServer server = MetricsServer.start(arguments.host(), arguments.port(), metrics);
      return "serving http://" + hostForUrl(arguments.host()) + ":" + server.port() + "/metrics";
    } catch (Exception e) {
      AgentLog.get()
          .warn(
              "cannot serve metrics on {}:{} ({}); counting goes on without an endpoint",
              arguments.host(),
              arguments.port(),
              e.toString());
      return "serving no endpoint";
    }
  }

  private static String hostForUrl(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  private static void install(Instrumentation instrumentation) {
    // Advice needs neither Nexus (no type initializers to run) nor class injection. Left enabled, our
    // ByteBuddy probes both through sun.misc.Unsafe, and Java 24+ prints WARNING lines naming the agent
    // on the host's stderr. Both keys are relocated with ByteBuddy: the host's own ByteBuddy never
    // reads them.
    System.setProperty(Nexus.PROPERTY, "true");
    if (System.getProperty(ClassInjector.UsingUnsafe.SAFE_PROPERTY) == null) {
      System.setProperty(ClassInjector.UsingUnsafe.SAFE_PROPERTY, "true");
    }
    // Advice rewrites only methods a class declares, so no method graph of its super types is needed;
    // building one reads every interface's class file, and another agent's injected interfaces
    // (OpenTelemetry's VirtualFieldAccessor) have none, which failed the whole class.
    ByteBuddy byteBuddy = new ByteBuddy().with(MethodGraph.Compiler.ForDeclaredMethods.INSTANCE);
    AgentBuilder builder =
        new AgentBuilder.Default(byteBuddy)
            .disableClassFormatChanges()
            .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
            .with(AgentBuilder.TypeStrategy.Default.DECORATE)
            .with(new FaultListener())
            .ignore(
                nameStartsWith("java.")
                    .or(nameStartsWith("javax."))
                    .or(nameStartsWith("jdk."))
                    .or(nameStartsWith("sun."))
                    .or(nameStartsWith("com.sun."))
                    .or(nameStartsWith("dev.resyncmeter.agent."))
                    .or(nameStartsWith("dev.resyncmeter.collector."))
                    // thousands of generated models, none of them a handler
                    .or(nameStartsWith("io.kubernetes.client.openapi.models."))
                    .or(isSynthetic()));
    for (InstrumentationUnit unit : CLIENT_JAVA_UNITS) {
      builder = unit.install(builder);
    }
    builder.installOn(instrumentation);
  }

  private static String clientLibraries(ResyncMetrics metrics) {
    String names = CLIENT_JAVA_UNITS.stream().map(InstrumentationUnit::name).collect(Collectors.joining(", "));
    String clientJava = ClientJavaVersion.of(ClassLoader.getSystemClassLoader());
    if (clientJava == null) {
      // Not an error: a Spring Boot jar, a servlet container or a plugin loader brings it later.
      return "client-java is not on the system class path: its " + names + " will be instrumented when a class loader loads it";
    }
    FaultListener.publishInfo(metrics, clientJava);
    return "instrumenting client-java " + clientJava + " (" + names + ")";
  }

  static String version() {
    try (InputStream in = ResyncMeterAgent.class.getResourceAsStream("version.txt")) {
      return in == null ? "unknown" : new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (Exception e) {
      return "unknown";
    }
  }

  /**
   * Counts and reports instrumentation faults, and publishes {@code resync_meter_info} when a
   * client-java class is first woven (client-java may sit in a loader the agent saw only now).
   */
  static final class FaultListener extends AgentBuilder.Listener.Adapter {
    private static final AtomicBoolean INFO_PUBLISHED = new AtomicBoolean();

    static void publishInfo(ResyncMetrics metrics, String clientJavaVersion) {
      if (INFO_PUBLISHED.compareAndSet(false, true)) {
        metrics.info(version(), "client-java", clientJavaVersion);
      }
    }

    @Override
    public void onTransformation(
        TypeDescription type, ClassLoader loader, JavaModule module, boolean loaded, DynamicType dynamicType) {
      if (!INFO_PUBLISHED.get() && type.getName().startsWith("io.kubernetes.client.informer.")) {
        String clientJava = ClientJavaVersion.of(loader);
        ResyncMetrics metrics = AgentMetrics.get();
        if (clientJava != null && metrics != null) {
          publishInfo(metrics, clientJava);
        }
      }
    }

    /**
     * A class a unit gave advice to could not be woven: that unit would count with a part missing, so
     * it switches off, and says so in its one line. Anything else failing here is a fault of the
     * agent's matching (matchers never fail on a class they cannot fully read: see HasSuperTypeNamed).
     */
    @Override
    public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded, Throwable throwable) {
      List<UnitSwitch> units = LayoutCheckedAdvice.takeWeavingUnits();
      if (units.isEmpty()) {
        AgentFaults.record("instrumentation", new IllegalStateException("cannot instrument " + typeName + ": " + throwable, throwable));
        return;
      }
      for (UnitSwitch unit : units) {
        AgentFaults.count("instrumentation");
        unit.turnOff("could not weave " + typeName + " (" + throwable + ")");
      }
    }

    @Override
    public void onComplete(String typeName, ClassLoader loader, JavaModule module, boolean loaded) {
      LayoutCheckedAdvice.takeWeavingUnits();
    }
  }
}
