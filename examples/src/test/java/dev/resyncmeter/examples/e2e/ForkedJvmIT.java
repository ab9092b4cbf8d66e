package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Jdks;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Which JVM the end-to-end tests fork: the build runs them twice, each pass naming its JDK with
 * {@code -Dresyncmeter.testJdk}: the Java the agent is compiled for (17, {@code maven.compiler.release})
 * and then 25, each found as {@link Jdks} says, whichever JDK runs Maven.
 */
class ForkedJvmIT {

  private static final Pattern PROPERTY = Pattern.compile("^ {4}(java\\.home|java\\.version|java\\.specification\\.version) = (.*)$", Pattern.MULTILINE);
  private static final Pattern RELEASE_VERSION = Pattern.compile("^JAVA_VERSION=\"([^\"]+)\"$", Pattern.MULTILINE);

  @Test
  void theForkedJvmsRunOnExactlyTheJdkThisPassNames() throws Exception {
    String asked = System.getProperty("resyncmeter.testJdk", "");
    assertThat(asked).as("each pass names the JDK its forked JVMs run on (resyncmeter.testJdk in examples/pom.xml)").matches("\\d+");
    Path home = Jdks.home(Integer.parseInt(asked));
    Process java =
        new ProcessBuilder(AgentProcess.javaHome().resolve("bin").resolve("java").toString(), "-XshowSettings:properties", "-version")
            .redirectErrorStream(true)
            .start();
    String settings = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(java.waitFor(30, TimeUnit.SECONDS)).isTrue();
    Map<String, String> forked = new HashMap<>();
    for (Matcher property = PROPERTY.matcher(settings); property.find(); ) {
      forked.put(property.group(1), property.group(2));
    }
    Matcher release = RELEASE_VERSION.matcher(Files.readString(home.resolve("release")));
    assertThat(release.find()).as(home + "/release").isTrue();
    assertThat(forked)
        .as(settings)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "java.home", home.toRealPath().toString(),
                "java.specification.version", asked,
                "java.version", release.group(1)));
  }
}
