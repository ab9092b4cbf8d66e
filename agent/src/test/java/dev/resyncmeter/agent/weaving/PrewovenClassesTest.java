package dev.resyncmeter.agent.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.api.Part;
import dev.resyncmeter.agent.api.WeavingRules;
import dev.resyncmeter.agent.runtime.TestCollector;
import dev.resyncmeter.agent.start.Parts;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The library classes woven when the agent was built: each is exactly what ByteBuddy weaves from the
 * same class file at run time, every class a part weaves by name is among them, and a class file of
 * another version, or matched by other rules, is not found (ByteBuddy weaves it then).
 */
class PrewovenClassesTest {

  /** The build's class path and fabric8's other HTTP clients, which the build wove too. */
  private static final ClassLoader LOADER = loaderWithWeaveAheadJars();

  private PrewovenClasses prewoven;

  private static ClassLoader loaderWithWeaveAheadJars() {
    try (Stream<Path> jars = Files.list(Path.of("target", "weave-ahead"))) {
      List<URL> urls = new ArrayList<>();
      for (Path jar : (Iterable<Path>) jars::iterator) {
        urls.add(jar.toUri().toURL());
      }
      return new URLClassLoader(urls.toArray(new URL[0]), PrewovenClassesTest.class.getClassLoader());
    } catch (Exception e) {
      throw new IllegalStateException("the build copies fabric8's HTTP clients to target/weave-ahead", e);
    }
  }

  private static byte[] classFile(String name) throws Exception {
    try (InputStream in = LOADER.getResourceAsStream(name.replace('.', '/') + ".class")) {
      assertThat(in).as(name + " on the build's class path").isNotNull();
      return in.readAllBytes();
    }
  }

  @BeforeEach
  void load() throws Exception {
    TestCollector.install();
    prewoven = PrewovenClasses.load();
  }

  @AfterEach
  void removeTheCollector() {
    TestCollector.uninstall();
  }

  private static List<String> index() throws Exception {
    try (InputStream in = PrewovenClasses.class.getResourceAsStream(PrewovenClasses.INDEX)) {
      assertThat(in).as("the build's index of classes woven ahead of time").isNotNull();
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
    }
  }

  @Test
  void everyClassWovenAheadIsWhatByteBuddyWeavesFromTheSameClassFile() throws Exception {
    Weaver weaver = new Weaving(Parts.ALL, Parts.ALL, "test").weaver(PrewovenClasses.NONE);
    List<String> index = index();
    assertThat(index).hasSize(prewoven.size());
    for (String line : index) {
      PrewovenClasses.Entry entry = PrewovenClasses.Entry.parse(line);
      byte[] classFile = classFile(entry.name());
      List<WeavingRules.Rule> selected = weaver.selecting(LOADER, entry.name(), classFile);

      assertThat(selected).extracting(WeavingRules.Rule::id).as(entry.name()).containsExactlyElementsOf(entry.rules());
      byte[] atRunTime = weaver.byteBuddy().weave(weaver.weavingRules(LOADER, entry.name(), classFile), null, LOADER, entry.name(), null, classFile);
      assertThat(prewoven.woven(entry.name(), classFile, selected, LOADER)).as(entry.name()).isEqualTo(atRunTime);
    }
  }

  @Test
  void everyClassAPartWeavesByNameIsWovenAhead() throws Exception {
    Set<String> woven = Set.copyOf(index().stream().map(l -> PrewovenClasses.Entry.parse(l).name()).toList());
    for (Part part : Parts.ALL) {
      for (String name : part.wovenByName()) {
        if (LOADER.getResource(name.replace('.', '/') + ".class") != null) {
          assertThat(woven).as(part.component()).contains(name);
        }
      }
    }
    // handler calls are measured where the library makes them: no handler class needs weaving at the JVM's start
    assertThat(woven).as("a library class that implements a handler interface").doesNotContain("io.kubernetes.client.extended.controller.DefaultControllerWatch$1");
  }

  @Test
  void aClassFileOfAnotherVersionIsNotFound() throws Exception {
    String name = "io.kubernetes.client.informer.cache.ProcessorListener";
    byte[] classFile = classFile(name);
    List<WeavingRules.Rule> matched = new Weaving(Parts.ALL, Parts.ALL, "test").weaver(PrewovenClasses.NONE).selecting(LOADER, name, classFile);
    assertThat(prewoven.woven(name, classFile, matched, LOADER)).isNotNull();

    byte[] changed = Arrays.copyOf(classFile, classFile.length);
    changed[changed.length - 1] ^= 1;
    assertThat(prewoven.woven(name, changed, matched, LOADER)).isNull();
    assertThat(prewoven.woven(name, Arrays.copyOf(classFile, classFile.length + 1), matched, LOADER)).isNull();
  }

  @Test
  void aClassSelectedByOtherPartsThanAtBuildTimeIsNotFound() throws Exception {
    // JOSDK's controller event source is a fabric8 handler too: after an attach, when handler classes
    // are woven, fabric8's informer part selects it beside JOSDK's, and the build wove it for JOSDK's alone.
    String name = "io.javaoperatorsdk.operator.processing.event.source.controller.ControllerEventSource";
    byte[] classFile = classFile(name);
    List<WeavingRules.Rule> matched = new Weaving(Parts.ALL, Parts.ALL, "test", true).weaver(PrewovenClasses.NONE).selecting(LOADER, name, classFile);

    assertThat(matched).extracting(WeavingRules.Rule::id).containsExactly("fabric8-informer", "josdk-reconciler");
    assertThat(prewoven.woven(name, classFile, matched, LOADER)).isNull();
  }

  @Test
  void aLoaderThatCannotSeeTheAgentGetsNoClassWovenAhead() throws Exception {
    String name = "io.kubernetes.client.informer.cache.ProcessorListener";
    byte[] classFile = classFile(name);
    List<WeavingRules.Rule> matched = new Weaving(Parts.ALL, Parts.ALL, "test").weaver(PrewovenClasses.NONE).selecting(LOADER, name, classFile);
    ClassLoader blind = new URLClassLoader(new URL[0], null);

    assertThat(prewoven.woven(name, classFile, matched, blind)).isNull();
  }
}
