package dev.resyncmeter.agent.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.api.Part;
import dev.resyncmeter.agent.api.WeavingRules;
import dev.resyncmeter.agent.start.Parts;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Each part is described once, and its weaving agrees: the classes its rules name are exactly the
 * part's list of classes woven by name (the weaving selects by that list, and the start gate holds
 * those classes back), and the only handler interface its rules look for is the part's own. Every
 * class listed exists in the libraries the agent is built against.
 */
class WovenByNameTest {

  private static final ClassLoader LOADER = WovenByNameTest.class.getClassLoader();

  @Test
  void eachPartsRulesNameExactlyItsClassesWovenByNameAndLookForItsHandlerInterface() {
    for (Part part : Parts.ALL) {
      Set<String> named = new TreeSet<>();
      Set<String> interfaces = new TreeSet<>();
      for (WeavingRules.Rule rule : new Weaving(Parts.ALL, List.of(part), "test", true).rules()) {
        named.addAll(rule.names());
        if (rule.handlerInterface() != null) {
          interfaces.add(rule.handlerInterface());
        }
        assertThat(rule.id()).startsWith(part.component() + "#");
      }
      assertThat(named).as(part + " weaves by name").containsExactlyInAnyOrderElementsOf(part.wovenByName());
      assertThat(interfaces).as(part + " looks for implementations of").isEqualTo(part.handlerInterface() == null ? Set.of() : Set.of(part.handlerInterface()));
    }
  }

  @Test
  void everyClassWovenByNameIsInTheLibrariesBuiltAgainst() {
    // fabric8's other HTTP clients are not on this class path (the build weaves two of them ahead of time from their own jars)
    Set<String> notHere = new TreeSet<>();
    for (String listed : Parts.wovenByName(Parts.ALL)) {
      if (LOADER.getResource(listed + ".class") == null) {
        notHere.add(listed);
      }
    }
    assertThat(notHere)
        .containsExactlyInAnyOrder(
            "io/fabric8/kubernetes/client/jdkhttp/JdkHttpClientImpl",
            "io/fabric8/kubernetes/client/okhttp/OkHttpClientImpl",
            "io/fabric8/kubernetes/client/vertx5/Vertx5HttpClient",
            "io/fabric8/kubernetes/client/jetty/JettyHttpClient");
  }

  @Test
  void buildingThePartsWeavingSwitchesNoPartOff() {
    new Weaving(Parts.ALL, Parts.ALL, "test").rules();
    for (Part part : Parts.ALL) {
      assertThat(part.unitSwitch().isOff()).as(part + " switched off").isFalse();
    }
  }
}
