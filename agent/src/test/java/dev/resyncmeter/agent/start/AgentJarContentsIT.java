package dev.resyncmeter.agent.start;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/** The built agent jar carries everything it needs, all of it under the agent's own packages. */
class AgentJarContentsIT {

  private static final Path JAR = Path.of("target", "resync-meter-agent.jar");
  private static final Pattern LICENSE_TEXT = Pattern.compile("META-INF/(LICENSE|NOTICE)(\\.txt)?|META-INF/licenses/[^/]+");

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
        .contains("dev/resyncmeter/agent/shaded/slf4j/LoggerFactory.class")
        .anyMatch(name -> name.startsWith("dev/resyncmeter/agent/shaded/prometheus/metrics/"))
        .contains("dev/resyncmeter/collector/ResyncMetrics.class");
  }

  /**
   * Every entry is one the host's class loader keeps in memory for the JVM's life: the protobuf
   * exposition format (the endpoint serves only the text formats) and SLF4J's simple binding (the
   * agent has its own provider) stay out.
   */
  @Test
  void theJarHoldsNeitherTheProtobufFormatNorAnSlf4jBinding() throws IOException {
    List<String> unused =
        entries().stream()
            .filter(name -> name.contains("/com_google_protobuf") || name.contains("/expositionformats/internal/") || name.contains("/slf4j/simple/"))
            .toList();
    assertThat(unused).isEmpty();
  }

  /**
   * Only the shade step writes the agent's path, by renaming its finished jar into place: the jar
   * plugin's jar of the classes alone (about 200 KB, no dependencies) is {@code
   * resync-meter-agent-classes.jar}, so that no build ever leaves it where a demo or a test loads the
   * agent from. What the shade step moves aside, {@code original-resync-meter-agent.jar}, is then the
   * previous build's whole agent, never the classes alone.
   */
  @Test
  void theJarOfTheClassesAloneIsNeverAtTheAgentsPath() throws IOException {
    Path classesOnly = Path.of("target", "resync-meter-agent-classes.jar");
    assertThat(classesOnly).isRegularFile();
    assertThat(entries(classesOnly)).contains("dev/resyncmeter/agent/start/ResyncMeterAgent.class").noneMatch(n -> n.startsWith("dev/resyncmeter/agent/shaded/"));
    Path movedAside = Path.of("target", "original-resync-meter-agent.jar");
    if (Files.exists(movedAside)) {
      assertThat(entries(movedAside)).anyMatch(n -> n.startsWith("dev/resyncmeter/agent/shaded/"));
    }
  }

  /**
   * The jar sits on the host's system class path: any resource outside our packages is one a host's
   * {@code getResource} or class path scanner could find (a root {@code simplelogger.properties}, a
   * library's build properties, {@code META-INF/versions/}, Maven metadata...). Only the manifest,
   * license texts and our own service files may be there.
   */
  @Test
  void everyResourceOutsideTheAgentsPackagesIsTheManifestALicenseTextOrOneOfOurServiceFiles() throws IOException {
    List<String> foreign = entries().stream()
        .filter(name -> !name.endsWith("/"))
        .filter(name -> !name.startsWith("dev/resyncmeter/"))
        .filter(name -> !name.equals("META-INF/MANIFEST.MF"))
        .filter(name -> !LICENSE_TEXT.matcher(name).matches())
        .filter(name -> !name.startsWith("META-INF/services/dev.resyncmeter."))
        .toList();
    assertThat(foreign).isEmpty();
  }

  /** The artifacts shaded into the jar, by the start of their jar file's name. */
  private static final List<String> SHADED =
      List.of("byte-buddy-", "micrometer-", "prometheus-metrics-", "slf4j-api-", "HdrHistogram-", "LatencyUtils-", "jspecify-");

  /**
   * Each shaded library's license and NOTICE files are in the jar whole, under the same names (the
   * texts of several libraries one after the other), and the project's own license comes first.
   */
  @Test
  void theLicenseAndNoticeTextsOfEveryShadedLibraryAreKeptAfterTheProjectsOwn() throws IOException {
    int libraries = 0;
    int texts = 0;
    try (JarFile agent = new JarFile(JAR.toFile())) {
      assertThat(text(agent, "META-INF/LICENSE").trim()).startsWith(Files.readString(Path.of("..", "LICENSE")).trim());
      for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
        String name = Path.of(entry).getFileName().toString();
        if (!name.endsWith(".jar") || SHADED.stream().noneMatch(name::startsWith)) {
          continue;
        }
        libraries++;
        try (JarFile library = new JarFile(entry)) {
          for (ZipEntry file : Collections.list(library.entries())) {
            if (!file.isDirectory() && LICENSE_TEXT.matcher(file.getName()).matches()) {
              texts++;
              assertThat(text(agent, file.getName())).as(file.getName() + " of " + name).contains(text(library, file.getName()).trim());
            }
          }
        }
      }
    }
    assertThat(libraries).as("shaded libraries on the test's class path").isGreaterThanOrEqualTo(10);
    assertThat(texts).isGreaterThanOrEqualTo(10);
  }

  private static String text(JarFile jar, String name) throws IOException {
    ZipEntry entry = jar.getEntry(name);
    assertThat(entry).as(name + " in " + jar.getName()).isNotNull();
    return new String(jar.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8);
  }

  /** A service file naming a host-visible interface, or a provider outside our packages, would leak. */
  @Test
  void everyServiceFileNamesOneOfOurInterfacesAndOnlyOurProvidersAllInsideTheJar() throws IOException {
    List<String> entries = entries();
    List<String> serviceFiles = entries.stream().filter(name -> name.startsWith("META-INF/services/") && !name.endsWith("/")).toList();
    assertThat(serviceFiles).isNotEmpty();
    try (JarFile jar = new JarFile(JAR.toFile())) {
      for (String serviceFile : serviceFiles) {
        String service = serviceFile.substring("META-INF/services/".length());
        assertThat(service).startsWith("dev.resyncmeter.");
        assertThat(entries).as(serviceFile).contains(service.replace('.', '/') + ".class");
        String content = new String(jar.getInputStream(jar.getEntry(serviceFile)).readAllBytes(), StandardCharsets.UTF_8);
        List<String> providers = content.lines().map(l -> l.replaceAll("#.*", "").trim()).filter(l -> !l.isEmpty()).toList();
        assertThat(providers).as(serviceFile).isNotEmpty();
        for (String provider : providers) {
          assertThat(provider).as(serviceFile).startsWith("dev.resyncmeter.");
          assertThat(entries).as(serviceFile).contains(provider.replace('.', '/') + ".class");
        }
      }
    }
  }

  /** The jar adds nothing but itself to the host's class path, and nothing to the boot class path. */
  @Test
  void theManifestAddsNoOtherJarAndNoMultiReleaseVersions() throws IOException {
    try (JarFile jar = new JarFile(JAR.toFile())) {
      var attributes = jar.getManifest().getMainAttributes();
      assertThat(attributes.getValue("Class-Path")).isNull();
      assertThat(attributes.getValue("Boot-Class-Path")).isNull();
      assertThat(attributes.getValue("Multi-Release")).isNull();
    }
  }

  @Test
  void theManifestNamesTheAgentEntryForStartAndAttach() throws IOException {
    try (JarFile jar = new JarFile(JAR.toFile())) {
      var attributes = jar.getManifest().getMainAttributes();
      assertThat(attributes.getValue("Premain-Class")).isEqualTo("dev.resyncmeter.agent.start.ResyncMeterAgent");
      assertThat(attributes.getValue("Agent-Class")).isEqualTo("dev.resyncmeter.agent.start.ResyncMeterAgent");
    }
  }

  @Test
  void noInstrumentedLibraryIsPackaged() throws IOException {
    assertThat(entries()).noneMatch(name -> name.contains("io/kubernetes/"));
  }

  private static List<String> entries() throws IOException {
    return entries(JAR);
  }

  private static List<String> entries(Path path) throws IOException {
    assertThat(Files.isRegularFile(path)).as(path + " is built by `mvn package`").isTrue();
    try (JarFile jar = new JarFile(path.toFile())) {
      return Collections.list(jar.entries()).stream().map(ZipEntry::getName).toList();
    }
  }
}
