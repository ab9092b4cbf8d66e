package dev.resyncmeter.agent.start;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part;
import dev.resyncmeter.agent.api.WeavingRules;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.collector.Observability;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every list about the parts derives from their descriptions, and the documentation lists exactly them. */
class PartsTest {

  private static final ClassLoader LOADER = PartsTest.class.getClassLoader();

  private static List<String> rows(List<Part> parts) {
    List<String> rows = new ArrayList<>();
    for (Part part : parts) {
      rows.add(part.component() + " | " + part.library().displayName() + " | " + part.name());
    }
    return rows;
  }

  @Test
  void theNamesAreThoseMetricsAndUsersKnow() {
    // metric labels and the start line are a public contract: a rename breaks dashboards and scripts
    assertThat(rows(Parts.ALL))
        .containsExactly(
            "clientjava-informer | client-java | informer",
            "clientjava-workqueue | client-java | workqueue",
            "clientjava-controller | client-java | controller",
            "clientjava-requests | client-java | requests",
            "fabric8-informer | fabric8 | informer",
            "fabric8-requests | fabric8 | requests",
            "josdk-reconciler | JOSDK | reconciler");
    assertThat(Parts.libraries()).extracting(Library::label).containsExactly("client-java", "fabric8", "josdk");
  }

  @Test
  void eachPartsWeavingSwitchesWithThePartsSwitchWhoseWordsNameIt() throws Exception {
    for (Part part : Parts.ALL) {
      List<WeavingRules.Rule> rules = part.weaving().install(new WeavingRules(part)).rules();
      assertThat(rules).as(part.component()).isNotEmpty().allSatisfy(rule -> assertThat(rule.unit()).isSameAs(part.unitSwitch()));
      assertThat(part.unitSwitch().unit()).isEqualTo(part.library().displayName() + " " + part.name());
    }
  }


  @Test
  void theStartLineNamesEachLibraryWithItsWovenParts() {
    String version = "[^ ]+";
    assertThat(StartLine.parts(Parts.ALL, LOADER))
        .matches(
            "instrumenting client-java " + version + " \\(informer, workqueue, controller, requests\\), fabric8 " + version
                + " \\(informer, requests\\), JOSDK " + version + " \\(reconciler\\)");
    assertThat(StartLine.parts(Parts.without(Set.of("clientjava-workqueue", "fabric8-requests")), LOADER))
        .matches(
            "instrumenting client-java " + version + " \\(informer, controller, requests\\), fabric8 " + version
                + " \\(informer\\), JOSDK " + version + " \\(reconciler\\); disabled: clientjava-workqueue, fabric8-requests");
    assertThat(StartLine.parts(Parts.without(Set.of("josdk-reconciler")), LOADER))
        .as("a library all of whose parts are disabled")
        .doesNotContain("JOSDK")
        .endsWith("; disabled: josdk-reconciler");
  }

  @Test
  void theStartLineSaysWhichLibraryVersionsAreNotWovenAheadOfTime(@org.junit.jupiter.api.io.TempDir Path folder) throws IOException {
    assertThat(StartLine.versionsWovenAhead()).as("the build's list").isNotEmpty();
    // client-java 26.0.0, which the agent is not built with: only its probe class and its version
    Path probe = folder.resolve("io/kubernetes/client/informer/SharedInformerFactory.class");
    Files.createDirectories(probe.getParent());
    Files.write(probe, new byte[0]);
    Path pom = folder.resolve("META-INF/maven/io.kubernetes/client-java/pom.properties");
    Files.createDirectories(pom.getParent());
    Files.writeString(pom, "version=26.0.0\n");
    try (URLClassLoader older = new URLClassLoader(new URL[] {folder.toUri().toURL()}, null)) {
      assertThat(StartLine.parts(Parts.ALL, older))
          .isEqualTo("instrumenting client-java 26.0.0 (informer, workqueue, controller, requests; not woven ahead of time: ByteBuddy weaves it at run time)");
    }
  }

  @Test
  void withoutTheLibrariesTheStartLineSaysTheyComeLater() throws IOException {
    try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
      assertThat(StartLine.parts(Parts.ALL, empty))
          .isEqualTo("client-java, fabric8 and JOSDK are not on the system class path: each is instrumented when a class loader loads it");
      assertThat(StartLine.parts(Parts.without(Set.of("fabric8-requests")), empty)).endsWith("loads it; disabled: fabric8-requests");
    }
  }



  @Test
  void aDisabledSwitchIsOffQuietlyAndTellsWhatIsLostOnce() {
    AtomicInteger lost = new AtomicInteger();
    UnitSwitch unit = new UnitSwitch("test part", "test-part", lost::incrementAndGet, () -> {});
    unit.disable();
    assertThat(unit.on()).isFalse();
    assertThat(unit.isOff()).isTrue();
    assertThat(unit.isDisabled()).isTrue();
    unit.turnOff("a layout it does not know");
    unit.disable();
    assertThat(lost).hasValue(1);
    assertThat(unit.isDisabled()).as("still disabled, not switched off").isTrue();
  }

  @Test
  void anInformerPartOffTellsTheCollectorThatHandlerCallsAreNoLongerAllSeen() {
    Observability seen = new Observability();
    Part.Observation.HANDLER_CALLS.lostTo(seen);
    assertThat(seen.handlerCallsObservable()).isFalse();
    assertThat(seen.writesObservable()).as("what other parts see is not touched").isTrue();
    assertThat(Parts.ALL).filteredOn(p -> p.observation() == Part.Observation.HANDLER_CALLS).extracting(Part::component)
        .containsExactly("clientjava-informer", "fabric8-informer");
    assertThat(Parts.ALL).filteredOn(p -> p.observation() == Part.Observation.API_WRITES).extracting(Part::component)
        .containsExactly("clientjava-requests", "fabric8-requests");
    assertThat(Parts.ALL).filteredOn(p -> p.observation() == Part.Observation.QUEUE_ADDS).extracting(Part::component)
        .containsExactly("clientjava-workqueue");
  }

  /** The table of parts in docs/host-promises.md: component, library, start line name. */
  @Test
  void theDocumentsTableOfPartsListsExactlyTheRegisteredParts() throws IOException {
    List<String> table = new ArrayList<>();
    boolean inTable = false;
    for (String line : Files.readAllLines(docs().resolve("host-promises.md"))) {
      if (line.startsWith("| part | library | on the start line |")) {
        inTable = true;
      } else if (inTable && line.startsWith("|---")) {
        continue;
      } else if (inTable && line.startsWith("| ")) {
        String[] cells = line.split("\\|");
        table.add(cell(cells[1]) + " | " + cell(cells[2]) + " | " + cell(cells[3]));
      } else {
        inTable = false;
      }
    }
    assertThat(table).containsExactlyElementsOf(rows(Parts.ALL));
  }

  @Test
  void theMetricTableListsEveryComponentOfTheActiveGauge() throws IOException {
    String metrics = Files.readString(docs().resolve("metrics.md"));
    Matcher row = Pattern.compile("\\| `resync_meter_instrumentation_active` \\| gauge \\| component=([^ |]+) \\|").matcher(metrics);
    assertThat(row.find()).isTrue();
    List<String> components = new ArrayList<>();
    for (String value : row.group(1).split("/")) {
      components.add(cell(value));
    }
    assertThat(components).containsExactlyElementsOf(Parts.components());
  }

  private static String cell(String text) {
    return text.trim().replace("`", "");
  }

  private static Path docs() {
    Path docs = Path.of("").toAbsolutePath().getParent().resolve("docs");
    assertThat(docs.resolve("host-promises.md")).as("run from the agent module").isRegularFile();
    return docs;
  }
}
