package dev.resyncmeter.agent.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part;
import dev.resyncmeter.agent.api.WeavingRules;
import dev.resyncmeter.agent.start.Parts;
import dev.resyncmeter.collector.ResyncMetrics;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the weaving makes of the parts' descriptions: the names it ignores, the series it exports, the rules. */
class WeavingTest {

  @Test
  void theWeavingIgnoresTheLibrariesPackagesButNeverAClassAPartWeavesByName() {
    for (Part part : Parts.ALL) {
      for (String name : part.wovenByName()) {
        assertThat(NamePrefixes.ignoredBy(Parts.ALL).ignores(name)).as(name).isFalse();
      }
      if (part.handlerInterface() != null) {
        assertThat(NamePrefixes.ignoredBy(Parts.ALL).ignores(part.handlerInterface())).isFalse();
      }
    }
    for (Library library : Parts.libraries()) {
      for (String prefix : library.ignoredPackages()) {
        assertThat(NamePrefixes.ignoredBy(Parts.ALL).ignores(prefix + "Model")).as(prefix).isTrue();
      }
    }
    assertThat(NamePrefixes.ignoredBy(Parts.ALL).ignores("io.kubernetes.client.openapi.ApiClient")).isFalse();
    assertThat(NamePrefixes.ignoredBy(Parts.ALL).ignores("io.kubernetes.client.openapi.models.V1ConfigMap")).isTrue();
    assertThat(NamePrefixes.ignoredBy(Parts.ALL).ignores("okhttp3.internal.connection.RealCall")).isFalse();
    assertThat(NamePrefixes.ignoredBy(Parts.ALL).ignores("okhttp3.OkHttpClient")).isTrue();
  }

  @Test
  void aDisabledPartHasNoActiveSeriesTheOthersOne() {
    ResyncMetrics metrics = new ResyncMetrics();
    new Weaving(Parts.ALL, Parts.without(Set.of("fabric8-requests")), "test").publish(metrics);
    String scrape = metrics.scrape(null).body();
    for (Part part : Parts.ALL) {
      String series = "resync_meter_instrumentation_active{component=\"" + part.component() + "\"}";
      if (part.component().equals("fabric8-requests")) {
        assertThat(scrape).doesNotContain(series);
      } else {
        assertThat(scrape).contains(series + " 1.0");
      }
    }
  }

  @Test
  void aPartWhoseWeavingCannotBeMadeSwitchesOffAndTheOthersAreStillWoven() {
    Library library = new Library("Broken", "broken", "no/such/Probe.class", "no/such/pom.properties");
    Part broken = Part.of(library, "informer", "broken-informer").wovenBy("no.such.InstrumentationUnit").build();

    List<WeavingRules.Rule> rules = new Weaving(Parts.ALL, List.of(broken, Parts.ALL.get(0)), "test").rules();

    assertThat(broken.unitSwitch().isOff()).isTrue();
    assertThat(rules).isNotEmpty().allSatisfy(rule -> assertThat(rule.id()).startsWith(Parts.ALL.get(0).component() + "#"));
    assertThat(Parts.ALL.get(0).unitSwitch().isOff()).isFalse();
  }
}
