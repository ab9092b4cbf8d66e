package dev.resyncmeter.agent;

import dev.resyncmeter.collector.MetricsServer;
import dev.resyncmeter.collector.ResyncMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.UnknownHostException;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import net.bytebuddy.dynamic.Nexus;
import net.bytebuddy.dynamic.loading.ClassInjector;

/**
 * The agent's entry: {@code -javaagent} ({@link #premain}) or attach ({@link #agentmain}). It reports
 * its arguments and binds its endpoint, then builds the collector and weaves the instrumentation units
 * on a thread of its own while the host starts (see {@link StartGate}). Whatever goes wrong here costs
 * the host one line on stderr, never its start.
 */
public final class ResyncMeterAgent {

  private static final AtomicBoolean STARTED = new AtomicBoolean();

  /**
   * Set in the JVM the agent runs in, under the agent's own prefix: the attach command reads them to
   * refuse a second agent and to say where this one serves.
   */
  public static final String VERSION_PROPERTY = "dev.resyncmeter.agent.version";
  public static final String ENDPOINT_PROPERTY = "dev.resyncmeter.agent.endpoint";
  /** How {@link #ENDPOINT_PROPERTY} starts when the agent serves; anything else says why it does not. */
  public static final String SERVING = "serving ";
  /** How {@link #ENDPOINT_PROPERTY} starts when an attached agent stayed out, followed by why. */
  public static final String NOT_STARTED = "not started: ";

  private ResyncMeterAgent() {}

  static final String ATTACHED_LINE =
      "attached to a running JVM: counting starts now; work queued before is counted as trigger=\"unknown\", reconciles running now are not counted";

  public static void premain(String args, Instrumentation instrumentation) {
    // Beside another Java agent, everything is done here, before that agent's premain, as always: its
    // transformer may take its own class loader's lock while it loads a class, and a start thread
    // loading our classes at the same time can deadlock with it (OpenTelemetry's does).
    start(args, instrumentation, !besideOtherJavaAgents(), false);
  }

  public static void agentmain(String args, Instrumentation instrumentation) {
    // Attached to a running host: its classes are loaded already, the weaving retransforms them now.
    start(args, instrumentation, false, true);
  }

  private static void start(String args, Instrumentation instrumentation, boolean inBackground, boolean attached) {
    StartGate gate = null;
    boolean handedOver = false;
    try {
      if (!STARTED.compareAndSet(false, true)) {
        AgentLog.warn("already running in this JVM; the second start is ignored");
        return;
      }
      // a failed attach before this one may have left its reason: the attach command reads this start's
      System.clearProperty(ENDPOINT_PROPERTY);
      AgentArguments arguments = AgentArguments.parse(args, System.getenv());
      for (String problem : arguments.problems()) {
        AgentLog.warn(problem);
      }
      List<Part> woven = Parts.without(arguments.disabled());
      MetricsServer server = null;
      String noEndpoint = null;
      try {
        server = bind(arguments);
      } catch (Exception e) {
        noEndpoint = "cannot serve metrics on " + arguments.host() + ":" + arguments.port() + ": " + whyNotBound(e);
      }
      if (noEndpoint != null && attached) {
        // Attached, an agent without its endpoint would count for nobody and refuse a corrected attach:
        // it stays out, with nothing woven, and says why where the attach command reads it.
        System.setProperty(ENDPOINT_PROPERTY, NOT_STARTED + noEndpoint);
        AgentLog.warn("{}; not started, the application runs as it did", noEndpoint);
        STARTED.set(false);
        return;
      }
      if (noEndpoint != null) {
        AgentLog.warn("{}; counting goes on without an endpoint", noEndpoint);
      }
      if (attached) {
        LateStart.attachedNow();
      }
      System.setProperty(VERSION_PROPERTY, version());
      disableUnsafeProbes();
      for (Part part : Parts.ALL) {
        if (!woven.contains(part)) {
          // before anything is woven: its bridges never count, and what other parts learn from it is lost
          part.unitSwitch().disable();
        }
      }
      gate = new StartGate(Parts.wovenByName(woven));
      instrumentation.addTransformer(gate, true);
      if (inBackground) {
        Thread starter = new Thread(null, new Start(gate, instrumentation, server, woven), "resync-meter-start", 0, false);
        starter.setDaemon(true);
        starter.setContextClassLoader(null);
        gate.startedBy(starter);
        starter.start();
      } else {
        gate.startedBy(Thread.currentThread());
        weave(gate, instrumentation, server, true, woven);
      }
      handedOver = true;
      String endpoint = server == null ? "no endpoint" : "http://" + hostForUrl(arguments.host()) + ":" + server.port() + "/metrics";
      System.setProperty(ENDPOINT_PROPERTY, server == null ? endpoint + ": " + noEndpoint : SERVING + endpoint);
      String serving = SERVING + endpoint;
      AgentLog.info("resync-meter {} {}; {}", version(), serving, parts(woven, ClassLoader.getSystemClassLoader()));
      if (attached) {
        // Not a fault: what was queued or began before has no start the agent could have seen.
        AgentLog.info(ATTACHED_LINE);
      }
    } catch (Throwable t) {
      if (gate != null && !handedOver) {
        // the weaving will not come: nothing may wait for it
        gate.open();
      }
      failedToStart(t);
    }
  }

  /**
   * On the start thread: the collector, then the weaving of {@code parts}, then the endpoint's answers.
   * The gate opens when the weaving is installed, or could not be: no class loading ever waits for a
   * failed start. Before the gate opens, no advice can run; the endpoint's first answer may wait for
   * the rest.
   */
  private static void weave(
      StartGate gate, Instrumentation instrumentation, MetricsServer server, boolean retransformLoaded, List<Part> parts) {
    ResyncMetrics metrics = null;
    Weaving weaving = null;
    try {
      metrics = new ResyncMetrics(AgentMetrics.observability());
      // Before any class is woven: advice that runs finds the collector.
      AgentMetrics.install(metrics);
      IdentityWeakMap.startCleaning();
      weaving = new Weaving(parts, version());
      gate.whenLate(weaving.unitSwitches());
      weaving.install(gate.delegatingTo(instrumentation), retransformLoaded);
      weaving.weaveEarlyHandlers(instrumentation, gate.activate());
    } catch (Throwable t) {
      failedToStart(t);
    } finally {
      gate.open();
    }
    if (metrics == null || weaving == null) {
      if (server != null) {
        server.close();
      }
    } else {
      try {
        weaving.publish(metrics);
        if (server != null) {
          server.serve(metrics);
        }
      } catch (Throwable t) {
        failedToStart(t);
      }
    }
  }

  private static void failedToStart(Throwable t) {
    try {
      System.err.println("[resync-meter] failed to start, the application runs without it: " + t);
    } catch (Throwable ignored) {
      // nothing more to do without harming the host
    }
  }

  /**
   * Advice needs neither Nexus (no type initializers to run) nor class injection. Left enabled, our
   * ByteBuddy probes both through sun.misc.Unsafe, and Java 24+ prints WARNING lines naming the agent
   * on the host's stderr. Both keys are relocated with ByteBuddy: the host's own ByteBuddy never reads
   * them. Set here, before the host's main, so that the host sees the same system properties from its
   * start on (the constants are compiled in: this loads no class of ByteBuddy's).
   */
  private static void disableUnsafeProbes() {
    System.setProperty(Nexus.PROPERTY, "true");
    if (System.getProperty(ClassInjector.UsingUnsafe.SAFE_PROPERTY) == null) {
      System.setProperty(ClassInjector.UsingUnsafe.SAFE_PROPERTY, "true");
    }
  }

  /**
   * Binds the endpoint's address now, so the start line tells the port or the one WARN line why there
   * is none; it answers once the collector is built. A shutdown hook closes it: a thread waiting in
   * {@code accept} would otherwise hold up every exit of the JVM by 300 ms (HotSpot waits that long
   * for threads in native code).
   */
  private static MetricsServer bind(AgentArguments arguments) throws IOException {
    MetricsServer server = MetricsServer.bind(arguments.host(), arguments.port());
    try {
      Thread closer = new Thread(null, new CloseOnExit(server), "resync-meter-shutdown", 0, false);
      closer.setContextClassLoader(null);
      Runtime.getRuntime().addShutdownHook(closer);
    } catch (RuntimeException shuttingDown) {
      // the JVM is exiting already: nothing to hold up
    }
    return server;
  }

  // Classes rather than lambdas for the two threads: a first lambda costs the host's start the
  // lambda machinery's own.
  private static final class Start implements Runnable {
    private final StartGate gate;
    private final Instrumentation instrumentation;
    private final MetricsServer server;
    private final List<Part> parts;

    Start(StartGate gate, Instrumentation instrumentation, MetricsServer server, List<Part> parts) {
      this.gate = gate;
      this.instrumentation = instrumentation;
      this.server = server;
      this.parts = parts;
    }

    @Override
    public void run() {
      weave(gate, instrumentation, server, false, parts);
    }
  }

  private static final class CloseOnExit implements Runnable {
    private final MetricsServer server;

    CloseOnExit(MetricsServer server) {
      this.server = server;
    }

    @Override
    public void run() {
      server.close();
    }
  }

  /**
   * Whether the JVM was given another Java agent: a {@code -javaagent} of another jar on the command
   * line or in the variables the JVM and launcher read. When that cannot be told (no command line, an
   * argument file), the answer is yes: the careful way.
   */
  static boolean besideOtherJavaAgents() {
    try {
      List<String> commandLine = commandLine();
      if (commandLine == null) {
        return true;
      }
      List<String> options = new ArrayList<>(commandLine);
      for (String variable : new String[] {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"}) {
        String value = System.getenv(variable);
        if (value != null) {
          options.addAll(List.of(value.trim().split("\\s+")));
        }
      }
      Path own = Path.of(ResyncMeterAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return otherJavaAgentIn(options, own);
    } catch (Throwable cannotTell) {
      return true;
    }
  }

  /**
   * This JVM's command line, its options among it, or null when it cannot be read. On Linux from
   * {@code /proc/self/cmdline}, whole: the JDK's {@code ProcessHandle.Info} reads only its first 4096
   * bytes and then gives no arguments at all, which a long class path makes the common case.
   */
  static List<String> commandLine() {
    try {
      byte[] bytes = Files.readAllBytes(Path.of("/proc/self/cmdline"));
      if (bytes.length > 0) {
        List<String> arguments = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < bytes.length; i++) {
          if (bytes[i] == 0) {
            arguments.add(new String(bytes, from, i - from, StandardCharsets.UTF_8));
            from = i + 1;
          }
        }
        if (from < bytes.length) {
          arguments.add(new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8));
        }
        // the first is the launcher itself, as in ProcessHandle's command
        return arguments.subList(1, arguments.size());
      }
    } catch (IOException | RuntimeException notLinux) {
      // read it as the JDK can
    }
    String[] arguments = ProcessHandle.current().info().arguments().orElse(null);
    return arguments == null ? null : List.of(arguments);
  }

  static boolean otherJavaAgentIn(List<String> options, Path ownJar) {
    Path own = ownJar.toAbsolutePath().normalize();
    for (String option : options) {
      if (option.startsWith("@")) {
        return true;
      }
      if (option.startsWith("-javaagent:")) {
        String jar = option.substring("-javaagent:".length());
        int equals = jar.indexOf('=');
        jar = equals < 0 ? jar : jar.substring(0, equals);
        if (!Path.of(jar).toAbsolutePath().normalize().equals(own)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Why the endpoint could not be bound, in words: the exception's class says nothing to a user. */
  static String whyNotBound(Exception e) {
    Throwable cause = e.getCause() != null ? e.getCause() : e;
    String message = cause.getMessage() == null ? "" : cause.getMessage();
    if (message.contains("already in use")) {
      return "the port is in use";
    }
    if (message.contains("assign requested address")) {
      return "the host is not an address of this machine";
    }
    if (message.contains("Permission denied")) {
      return "binding that port is not permitted";
    }
    if (cause instanceof UnknownHostException || message.contains("Unresolved")) {
      return "the host name is not known";
    }
    return message.isEmpty() ? "the address cannot be bound" : message;
  }

  private static String hostForUrl(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  /**
   * The start line's account of the parts: each instrumented library {@code loader} holds, with its
   * version and the names of its parts that are woven; then the parts the user disabled, by the names
   * {@code disable=} took.
   */
  static String parts(List<Part> woven, ClassLoader loader) {
    List<String> found = new ArrayList<>();
    boolean anyLibrary = false;
    for (Library library : Parts.libraries()) {
      String version = library.version(loader);
      if (version == null) {
        continue;
      }
      anyLibrary = true;
      List<String> names = new ArrayList<>();
      for (Part part : woven) {
        if (part.library() == library) {
          names.add(part.name());
        }
      }
      if (!names.isEmpty()) {
        found.add(library.displayName() + " " + version + " (" + String.join(", ", names) + ")");
      }
    }
    String line;
    if (!anyLibrary) {
      // Not an error: a Spring Boot jar, a servlet container or a plugin loader brings it later.
      line = inWords(Parts.libraries()) + " are not on the system class path: each is instrumented when a class loader loads it";
    } else {
      line = "instrumenting " + (found.isEmpty() ? "nothing" : String.join(", ", found));
    }
    List<String> disabled = new ArrayList<>();
    for (Part part : Parts.ALL) {
      if (!woven.contains(part)) {
        disabled.add(part.component());
      }
    }
    return disabled.isEmpty() ? line : line + "; disabled: " + String.join(", ", disabled);
  }

  /** {@code client-java, fabric8 and JOSDK}. */
  private static String inWords(List<Library> libraries) {
    StringBuilder words = new StringBuilder();
    for (int i = 0; i < libraries.size(); i++) {
      words.append(i == 0 ? "" : i == libraries.size() - 1 ? " and " : ", ").append(libraries.get(i).displayName());
    }
    return words.toString();
  }

  static String version() {
    try (InputStream in = ResyncMeterAgent.class.getResourceAsStream("version.txt")) {
      return in == null ? "unknown" : new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (Exception e) {
      return "unknown";
    }
  }
}
