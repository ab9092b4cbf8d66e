package dev.resyncmeter.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/** The built agent jar carries everything it needs, all of it under the agent's own packages. */
class AgentJarContentsIT {

  private static final Path JAR = Path.of("target", "resync-meter-agent.jar");

  @Test
  void everyClassIsUnderTheAgentsOwnPackages() throws IOException {
    List<String> foreign = entries().stream()
        .filter(name -> name.endsWith(".class"))
        .filter(name -> !name.startsWith("dev/resyncmeter/"))
        .toList();
    assertThat(foreign).isEmpty();
  }

  @Test
  void theDependenciesAreInsideRelocated() throws IOException {
    assertThat(entries())
        .contains("dev/resyncmeter/agent/shaded/bytebuddy/agent/builder/AgentBuilder.class")
        .contains("dev/resyncmeter/agent/shaded/micrometer/core/instrument/MeterRegistry.class")
        .contains("dev/resyncmeter/agent/shaded/slf4j/simple/SimpleLogger.class")
        .anyMatch(name -> name.startsWith("dev/resyncmeter/agent/shaded/prometheus/metrics/"))
        .contains("dev/resyncmeter/collector/ResyncMetrics.class");
  }

  @Test
  void noServiceFileNamesAnInterfaceTheHostCouldLoad() throws IOException {
    assertThat(entries().stream().filter(name -> name.startsWith("META-INF/services/") && !name.endsWith("/")))
        .isNotEmpty()
        .allMatch(name -> name.startsWith("META-INF/services/dev.resyncmeter."));
  }

  @Test
  void theManifestNamesTheAgentEntryForStartAndAttach() throws IOException {
    try (JarFile jar = new JarFile(JAR.toFile())) {
      var attributes = jar.getManifest().getMainAttributes();
      assertThat(attributes.getValue("Premain-Class")).isEqualTo("dev.resyncmeter.agent.ResyncMeterAgent");
      assertThat(attributes.getValue("Agent-Class")).isEqualTo("dev.resyncmeter.agent.ResyncMeterAgent");
    }
  }

  @Test
  void noInstrumentedLibraryIsPackaged() throws IOException {
    assertThat(entries()).noneMatch(name -> name.contains("io/kubernetes/"));
  }

  private static List<String> entries() throws IOException {
    assertThat(Files.isRegularFile(JAR)).as(JAR + " is built by `mvn package`").isTrue();
    try (JarFile jar = new JarFile(JAR.toFile())) {
      return Collections.list(jar.entries()).stream().map(ZipEntry::getName).toList();
    }
  }
}
