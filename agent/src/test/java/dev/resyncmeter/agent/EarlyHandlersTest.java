package dev.resyncmeter.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import java.io.File;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What the agent's start does with the classes the host loaded while the weaving was being built, and
 * when it builds the weaving before the host's main instead (beside another Java agent).
 */
class EarlyHandlersTest {

  private static final ClassLoader LOADER = EarlyHandlersTest.class.getClassLoader();

  abstract static class BaseHandler implements ResourceEventHandler<V1ConfigMap> {}

  static final class SubclassedHandler extends BaseHandler {
    @Override
    public void onAdd(V1ConfigMap obj) {}

    @Override
    public void onUpdate(V1ConfigMap oldObj, V1ConfigMap newObj) {}

    @Override
    public void onDelete(V1ConfigMap obj, boolean deletedFinalStateUnknown) {}
  }

  interface SpecialHandler extends ResourceEventHandler<V1ConfigMap> {}

  private static StartGate.Passed passed(Class<?> type) {
    return new StartGate.Passed(type.getClassLoader(), type.getName().replace('.', '/'));
  }

  /** A JVM with these classes loaded, recording what is retransformed and how often it was asked. */
  private static Instrumentation jvm(List<Class<?>> retransformed, int[] lookups, Class<?>... loaded) {
    return (Instrumentation)
        Proxy.newProxyInstance(
            LOADER,
            new Class<?>[] {Instrumentation.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "getAllLoadedClasses" -> {
                  lookups[0]++;
                  return loaded;
                }
                case "isModifiableClass" -> {
                  return true;
                }
                case "retransformClasses" -> {
                  retransformed.addAll(List.of((Class<?>[]) args[0]));
                  return null;
                }
                default -> throw new UnsupportedOperationException(method.getName());
              }
            });
  }

  @Test
  void theHandlersAmongTheEarlyClassesAreRetransformed() {
    List<Class<?>> retransformed = new ArrayList<>();
    int[] lookups = {0};
    Instrumentation jvm = jvm(retransformed, lookups, String.class, SubclassedHandler.class, BaseHandler.class, SpecialHandler.class, Thread.class, EarlyHandlersTest.class);
    new Weaving(Parts.ALL, "test").weaveEarlyHandlers(
        jvm, List.of(passed(EarlyHandlersTest.class), passed(SubclassedHandler.class), passed(BaseHandler.class), passed(SpecialHandler.class)));
    assertThat(retransformed).as("classes, not interfaces, reaching the handler interface").containsExactly(SubclassedHandler.class, BaseHandler.class);
    assertThat(lookups[0]).as("all found at the first look").isEqualTo(1);
  }

  @Test
  void aClassNeverDefinedIsLookedForBrieflyOnly() {
    List<Class<?>> retransformed = new ArrayList<>();
    int[] lookups = {0};
    Instrumentation jvm = jvm(retransformed, lookups, SubclassedHandler.class);
    long start = System.nanoTime();
    new Weaving(Parts.ALL, "test").weaveEarlyHandlers(jvm, List.of(passed(SubclassedHandler.class), new StartGate.Passed(LOADER, "com/example/NeverDefined")));
    assertThat(retransformed).containsExactly(SubclassedHandler.class);
    assertThat(lookups[0]).isEqualTo(20);
    assertThat(System.nanoTime() - start).isLessThan(5_000_000_000L);
  }

  @Test
  void theSameNameInAnotherLoaderIsAnotherClass() {
    List<Class<?>> retransformed = new ArrayList<>();
    int[] lookups = {0};
    ClassLoader other = new ClassLoader(LOADER) {};
    new Weaving(Parts.ALL, "test").weaveEarlyHandlers(
        jvm(retransformed, lookups, SubclassedHandler.class), List.of(new StartGate.Passed(other, SubclassedHandler.class.getName().replace('.', '/'))));
    assertThat(retransformed).isEmpty();
  }

  @Test
  void anotherJavaAgentOnTheCommandLineOrInTheVariablesIsSeen() {
    Path own = Path.of("agent/target/resync-meter-agent.jar");
    String ownAbsolute = own.toAbsolutePath().toString();
    assertThat(ResyncMeterAgent.otherJavaAgentIn(List.of("java", "-javaagent:agent/target/resync-meter-agent.jar=port=0", "-jar", "app.jar"), own))
        .isFalse();
    assertThat(ResyncMeterAgent.otherJavaAgentIn(List.of("-javaagent:" + ownAbsolute, "-Xmx1g"), own)).isFalse();
    assertThat(ResyncMeterAgent.otherJavaAgentIn(List.of("-javaagent:agent/target/./resync-meter-agent.jar"), own)).isFalse();
    assertThat(ResyncMeterAgent.otherJavaAgentIn(List.of("-javaagent:/opt/otel/opentelemetry-javaagent.jar", "-javaagent:" + ownAbsolute), own))
        .isTrue();
    assertThat(ResyncMeterAgent.otherJavaAgentIn(List.of("-javaagent:" + ownAbsolute, "-javaagent:jmx.jar=127.0.0.1:9404:c.yaml"), own)).isTrue();
    assertThat(ResyncMeterAgent.otherJavaAgentIn(List.of("@/tmp/jvm-arguments"), own)).as("an argument file cannot be told").isTrue();
  }

  /** Prints the command line as the agent reads it, one argument per line. */
  public static final class PrintCommandLine {
    public static void main(String[] args) {
      System.out.print(String.join("\n", ResyncMeterAgent.commandLine()));
    }
  }

  @Test
  void theCommandLineIsReadWholeHoweverLongTheClassPath() throws Exception {
    // the JDK's own reading gives no arguments past 4096 bytes; the agent then had to assume another agent
    String classPath = System.getProperty("java.class.path") + File.pathSeparator + "/no/such/folder/padding".repeat(300);
    Process java =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                PrintCommandLine.class.getName(),
                "an-argument-after-a-long-class-path")
            .redirectErrorStream(true)
            .start();
    String printed = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(java.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(classPath.length()).isGreaterThan(4096);
    assertThat(printed.lines().toList()).as(printed).containsSubsequence("-cp", classPath, PrintCommandLine.class.getName(), "an-argument-after-a-long-class-path");
  }
}
