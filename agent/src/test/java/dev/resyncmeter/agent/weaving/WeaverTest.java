package dev.resyncmeter.agent.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part;
import dev.resyncmeter.agent.api.WeavingRules;
import dev.resyncmeter.agent.runtime.TestCollector;
import dev.resyncmeter.agent.start.Parts;
import dev.resyncmeter.collector.ResyncMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The agent's transformer: which rules weave a class, and what a fault in one does to the host's class. */
class WeaverTest {

  private static final ClassLoader LOADER = WeaverTest.class.getClassLoader();
  private static final String SAMPLE = Sample.class.getName();

  /** An interface for the rules to match the implementations of. */
  interface Marker {}

  abstract static class MarkedBase implements Marker {}

  /** A class for the rules to match: by name, or as an implementation of {@link Marker} through its super class. */
  static final class Sample extends MarkedBase {}

  private ResyncMetrics metrics;

  @BeforeEach
  void installTheCollector() {
    metrics = TestCollector.install();
  }

  @AfterEach
  void removeTheCollector() {
    TestCollector.uninstall();
  }

  private static byte[] classFile(String name) throws Exception {
    try (InputStream in = LOADER.getResourceAsStream(name.replace('.', '/') + ".class")) {
      return in.readAllBytes();
    }
  }

  /** The part whose rules these tests give: only the rules' order and matches matter here. */
  private static final Part TEST_PART =
      Part.of(new Library("Test", "test", "no/such/Probe.class", "no/such/pom.properties"), "rules", "test-rules").wovenBy("no.such.Unit").build();

  private static Weaver weaver(NamePrefixes ignored, WeavingRules rules) {
    return new Weaver(ignored, rules.rules(), PrewovenClasses.NONE, new WeavingListener(Parts.ALL, "test"));
  }

  private static byte[] transform(Weaver weaver, String name) throws Exception {
    return weaver.transform(LOADER.getUnnamedModule(), LOADER, name.replace('.', '/'), null, null, classFile(name));
  }

  private double faults() {
    FunctionCounter counter = metrics.registry().find("resync.meter.errors").tag("component", "instrumentation").functionCounter();
    return counter == null ? 0 : counter.count();
  }

  /** A transformer that notes which rule applied, and changes nothing. */
  private static AgentBuilder.Transformer noting(List<String> applied, String rule) {
    return (builder, type, loader, module, domain) -> {
      applied.add(rule + ":" + type.getName());
      return builder;
    };
  }

  @Test
  void everyRuleThatMatchesAClassAppliesInTheOrderGiven() throws Exception {
    List<String> applied = new ArrayList<>();
    WeavingRules rules =
        new WeavingRules(TEST_PART)
            .type(SAMPLE)
            .transform(noting(applied, "first"))
            .type("com.example.Other")
            .transform(noting(applied, "other"))
            .implementationsOf(Marker.class.getName(), loader -> loader == LOADER)
            .transform(noting(applied, "second"));

    byte[] woven = transform(weaver(new NamePrefixes(Set.of(), "com.example."), rules), SAMPLE);

    assertThat(applied).containsExactly("first:" + SAMPLE, "second:" + SAMPLE);
    assertThat(woven).as("the class ByteBuddy wrote").isNotNull();
    assertThat(faults()).isZero();
  }

  @Test
  void aClassNoRuleMatchesIsLeftAsItIs() throws Exception {
    List<String> applied = new ArrayList<>();
    WeavingRules rules =
        new WeavingRules(TEST_PART)
            .type("com.example.Other")
            .transform(noting(applied, "by another name"))
            .implementationsOf(Marker.class.getName(), loader -> false)
            .transform(noting(applied, "elsewhere"))
            .implementationsOf(Runnable.class.getName(), loader -> true)
            .transform(noting(applied, "another interface"));

    assertThat(transform(weaver(new NamePrefixes(Set.of()), rules), SAMPLE)).isNull();
    assertThat(applied).isEmpty();
  }

  @Test
  void anInterfaceIsNeverAnImplementation() throws Exception {
    List<String> applied = new ArrayList<>();
    WeavingRules rules = new WeavingRules(TEST_PART).implementationsOf(Marker.class.getName(), loader -> true).transform(noting(applied, "any"));

    assertThat(transform(weaver(new NamePrefixes(Set.of()), rules), Marker.class.getName())).isNull();
    assertThat(transform(weaver(new NamePrefixes(Set.of()), rules), MarkedBase.class.getName())).isNotNull();
    assertThat(applied).containsExactly("any:" + MarkedBase.class.getName());
  }

  @Test
  void aClassIgnoredByNameIsNeverShownToAMatcher() throws Exception {
    List<ClassLoader> seen = new ArrayList<>();
    WeavingRules rules =
        new WeavingRules(TEST_PART)
            .implementationsOf(
                Marker.class.getName(),
                loader -> {
                  seen.add(loader);
                  return true;
                })
            .transform(noting(new ArrayList<>(), "any"));

    assertThat(transform(weaver(new NamePrefixes(Set.of(), "dev.resyncmeter.agent."), rules), SAMPLE)).isNull();
    assertThat(seen).isEmpty();
  }

  @Test
  void aMatcherThatFailsLeavesTheClassAsItIsAndCountsAFault() throws Exception {
    WeavingRules rules =
        new WeavingRules(TEST_PART)
            .implementationsOf(
                Marker.class.getName(),
                loader -> {
                  throw new IllegalStateException("a matcher's bug");
                })
            .transform(noting(new ArrayList<>(), "never"));

    assertThat(transform(weaver(new NamePrefixes(Set.of()), rules), SAMPLE)).isNull();
    assertThat(faults()).isEqualTo(1);
  }

  @Test
  void aClassLoadedWhileAClassIsWovenGoesByUnchanged() throws Exception {
    List<byte[]> nested = new ArrayList<>();
    Weaver[] weaver = new Weaver[1];
    WeavingRules rules =
        new WeavingRules(TEST_PART)
            .type(SAMPLE)
            .transform(
                (builder, type, loader, module, domain) -> {
                  // what a class loading on this thread in the middle of the weaving would ask
                  nested.add(transformUnchecked(weaver[0], SAMPLE));
                  return builder;
                });
    weaver[0] = weaver(new NamePrefixes(Set.of()), rules);

    assertThat(transform(weaver[0], SAMPLE)).isNotNull();
    assertThat(nested).hasSize(1);
    assertThat(nested.get(0)).isNull();
  }

  private static byte[] transformUnchecked(Weaver weaver, String name) {
    try {
      return transform(weaver, name);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
