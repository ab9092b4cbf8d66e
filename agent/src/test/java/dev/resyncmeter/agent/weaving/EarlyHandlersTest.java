package dev.resyncmeter.agent.weaving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.resyncmeter.agent.start.Parts;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the agent's start does with the classes the host loaded while the weaving was being built. */
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

  @Test
  void theHandlersAmongTheEarlyClassesAreRetransformed() {
    List<Class<?>> retransformed = new ArrayList<>();
    int[] lookups = {0};
    Instrumentation jvm = RecordingJvm.of(new ArrayList<>(), retransformed, lookups, String.class, SubclassedHandler.class, BaseHandler.class, SpecialHandler.class, Thread.class, EarlyHandlersTest.class);
    new Weaving(Parts.ALL, Parts.ALL, "test", true).weaveEarlyHandlers(
        jvm, List.of(passed(EarlyHandlersTest.class), passed(SubclassedHandler.class), passed(BaseHandler.class), passed(SpecialHandler.class)));
    assertThat(retransformed).as("classes, not interfaces, reaching the handler interface").containsExactly(SubclassedHandler.class, BaseHandler.class);
    assertThat(lookups[0]).as("all found at the first look").isEqualTo(1);
  }

  @Test
  void aClassNeverDefinedIsLookedForBrieflyOnly() {
    List<Class<?>> retransformed = new ArrayList<>();
    int[] lookups = {0};
    Instrumentation jvm = RecordingJvm.of(new ArrayList<>(), retransformed, lookups, SubclassedHandler.class);
    long start = System.nanoTime();
    new Weaving(Parts.ALL, Parts.ALL, "test", true).weaveEarlyHandlers(jvm, List.of(passed(SubclassedHandler.class), new StartGate.Passed(LOADER, "com/example/NeverDefined")));
    assertThat(retransformed).containsExactly(SubclassedHandler.class);
    assertThat(lookups[0]).isEqualTo(20);
    assertThat(System.nanoTime() - start).isLessThan(5_000_000_000L);
  }

  @Test
  void theSameNameInAnotherLoaderIsAnotherClass() {
    List<Class<?>> retransformed = new ArrayList<>();
    int[] lookups = {0};
    ClassLoader other = new ClassLoader(LOADER) {};
    new Weaving(Parts.ALL, Parts.ALL, "test", true).weaveEarlyHandlers(
        RecordingJvm.of(new ArrayList<>(), retransformed, lookups, SubclassedHandler.class), List.of(new StartGate.Passed(other, SubclassedHandler.class.getName().replace('.', '/'))));
    assertThat(retransformed).isEmpty();
  }

  /** Seen in CI: a host that exits at once made the start fail with a NullPointerException. */
  @Test
  void aHostThatExitsWhileTheAgentStartsEndsTheStartQuietly() {
    List<Class<?>> retransformed = new ArrayList<>();
    Instrumentation jvm = RecordingJvm.exiting(retransformed);
    Weaving weaving = new Weaving(Parts.ALL, Parts.ALL, "test", true);
    assertThatCode(() -> weaving.install(jvm, true)).doesNotThrowAnyException();
    assertThatCode(() -> weaving.weaveEarlyHandlers(jvm, List.of(passed(SubclassedHandler.class)))).doesNotThrowAnyException();
    assertThat(retransformed).isEmpty();
  }
}
