package dev.resyncmeter.agent.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import org.junit.jupiter.api.Test;

class LayoutCheckedAdviceTest {

  /** Stands for a library class as the agent knows it. */
  static class KnownQueue {
    private Set<Object> dirty;
    private boolean shuttingDown;

    public synchronized void add(Object item) {}

    public synchronized Object get() {
      return null;
    }
  }

  /** The same class in a version the agent does not know: a field renamed. */
  static class RenamedFieldQueue {
    private Set<Object> waiting;
    private boolean shuttingDown;

    public synchronized void add(Object item) {}

    public synchronized Object get() {
      return null;
    }
  }

  static final class EmptyAdvice {
    @Advice.OnMethodEnter
    static void enter() {}
  }

  private static final ClassLoader LOADER = LayoutCheckedAdviceTest.class.getClassLoader();

  private static LayoutCheckedAdvice queueAdvice(UnitSwitch unit) {
    return LayoutCheckedAdvice.of(unit)
        .field("dirty", Set.class.getName())
        .field("shuttingDown", "boolean")
        .method("add", 1, EmptyAdvice.class)
        .method("get", 0, EmptyAdvice.class);
  }

  @Test
  void aClassWithEveryFieldAndMethodIsRecognised() {
    assertThat(queueAdvice(new UnitSwitch("test", "test")).missing(TypeDescription.ForLoadedType.of(KnownQueue.class))).isNull();
  }

  @Test
  void aMissingFieldIsNamedWithItsType() {
    assertThat(queueAdvice(new UnitSwitch("test", "test")).missing(TypeDescription.ForLoadedType.of(RenamedFieldQueue.class)))
        .isEqualTo("field 'dirty' of type java.util.Set");
  }

  @Test
  void aFieldOfAnotherTypeIsNotTheFieldTheAdviceReads() {
    LayoutCheckedAdvice advice = LayoutCheckedAdvice.of(new UnitSwitch("test", "test")).field("shuttingDown", "int");
    assertThat(advice.missing(TypeDescription.ForLoadedType.of(KnownQueue.class))).isEqualTo("field 'shuttingDown' of type int");
  }

  @Test
  void aMissingMethodIsNamedWithItsArgumentCount() {
    LayoutCheckedAdvice advice = LayoutCheckedAdvice.of(new UnitSwitch("test", "test")).method("addAfter", 2, EmptyAdvice.class);
    assertThat(advice.missing(TypeDescription.ForLoadedType.of(KnownQueue.class))).isEqualTo("addAfter with 2 arguments");
  }

  @Test
  void anUnrecognisedClassIsLeftAsItIsAndSwitchesItsUnitOffOnce() {
    AtomicInteger undone = new AtomicInteger();
    UnitSwitch unit = new UnitSwitch("test", "test", undone::incrementAndGet, () -> {});
    LayoutCheckedAdvice advice = queueAdvice(unit);
    DynamicType.Builder<?> builder = new ByteBuddy().redefine(RenamedFieldQueue.class);

    assertThat(advice.transform(builder, TypeDescription.ForLoadedType.of(RenamedFieldQueue.class), LOADER, null, null)).isSameAs(builder);
    advice.transform(builder, TypeDescription.ForLoadedType.of(RenamedFieldQueue.class), LOADER, null, null);

    assertThat(unit.isOff()).isTrue();
    assertThat(unit.on()).isFalse();
    assertThat(undone).hasValue(1);
  }

  @Test
  void aClassWhoseLoaderCannotSeeTheAgentIsLeftAsItIsAndSwitchesItsUnitOff() {
    UnitSwitch unit = new UnitSwitch("test", "test");
    ClassLoader isolated = new ClassLoader(null) {};
    DynamicType.Builder<?> builder = new ByteBuddy().redefine(KnownQueue.class);

    assertThat(queueAdvice(unit).transform(builder, TypeDescription.ForLoadedType.of(KnownQueue.class), isolated, null, null))
        .isSameAs(builder);

    assertThat(unit.isOff()).isTrue();
  }

  @Test
  void aRecognisedClassTellsItsUnitItWasWovenAndKeepsTheUnitOn() {
    AtomicInteger applied = new AtomicInteger();
    UnitSwitch unit = new UnitSwitch("test", "test", () -> {}, applied::incrementAndGet);
    LayoutCheckedAdvice advice = queueAdvice(unit);

    advice.transform(new ByteBuddy().redefine(KnownQueue.class), TypeDescription.ForLoadedType.of(KnownQueue.class), LOADER, null, null);

    assertThat(applied).hasValue(1);
    assertThat(unit.on()).isTrue();
  }

  /** A host class whose methods the advice below wraps. */
  public static class HostWork {
    public String work(String input) {
      return "done " + input;
    }
  }

  /** A bridge with a bug: it throws, as any agent code below an advice method might. */
  public static final class FailingBridge {
    public static void call() {
      throw new IllegalStateException("a bug in the agent");
    }
  }

  static final class FailingAdvice {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
      FailingBridge.call();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit() {
      FailingBridge.call();
    }
  }

  @Test
  void aFaultBelowWovenAdviceIsCountedUnderItsUnitAndTheHostMethodRunsAsItWould() throws Exception {
    dev.resyncmeter.collector.ResyncMetrics metrics = new dev.resyncmeter.collector.ResyncMetrics();
    AgentMetrics.install(metrics);
    UnitSwitch unit = new UnitSwitch("test", "test-advice-faults");
    LayoutCheckedAdvice advice = LayoutCheckedAdvice.of(unit).method("work", 1, FailingAdvice.class);

    Class<?> woven =
        advice
            .transform(new ByteBuddy().redefine(HostWork.class).name(HostWork.class.getName() + "$Woven"), TypeDescription.ForLoadedType.of(HostWork.class), LOADER, null, null)
            .make()
            .load(LOADER, net.bytebuddy.dynamic.loading.ClassLoadingStrategy.Default.CHILD_FIRST)
            .getLoaded();
    Object host = woven.getDeclaredConstructor().newInstance();

    assertThat(woven.getMethod("work", String.class).invoke(host, "x")).isEqualTo("done x");
    assertThat(metrics.scrape(null).body()).contains("resync_meter_errors_total{component=\"test-advice-faults\"} 2.0");
    assertThat(unit.on()).as("a fault counts; it does not switch the unit off").isTrue();
  }
}
