package dev.resyncmeter.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Prometheus configurations and the compose file of {@code deploy/} are valid and fit together. */
class PrometheusConfigsTest {

  static final Path LOCAL = Tools.DEPLOY.resolve("local");
  static final Path RULES = Tools.ROOT.resolve("dashboards/rules/resync-meter.rules.yml");
  static final Path POD_JOB = Tools.DEPLOY.resolve("prometheus/scrape-resync-meter-pods.yml");

  /**
   * Debian builds Prometheus without Kubernetes discovery, so its promtool rejects
   * {@code kubernetes_sd_configs}. The tests swap that one block for file discovery of targets that
   * carry the same {@code __meta_kubernetes_*} labels: the relabelling under test stays as shipped.
   */
  static String withFileDiscovery(String podJob, Path targets) {
    String marker = "    kubernetes_sd_configs:\n      - role: pod\n";
    assertThat(podJob).containsOnlyOnce(marker);
    return podJob.replace(marker, "    file_sd_configs:\n      - files: ['" + targets + "']\n");
  }

  @Test
  void promtoolAcceptsTheLocalStacksConfigurationAndFindsTheRules() throws Exception {
    var result = Tools.promtool("check", "config", LOCAL.resolve("prometheus.yml").toString());
    assertThat(result.exit()).as(result.output()).isZero();
    assertThat(result.output())
        .contains("SUCCESS: 1 rule files found")
        .contains("SUCCESS: " + rulesIn(RULES) + " rules found");
  }

  /** The recording rules and alerts a rule file defines, counted from its text. */
  static long rulesIn(Path ruleFile) throws Exception {
    return Files.readAllLines(ruleFile).stream().filter(line -> line.matches("\\s*- (record|alert): .*")).count();
  }

  @Test
  void promtoolAcceptsTheClusterScrapeJob(@TempDir Path dir) throws Exception {
    Path targets = Files.writeString(dir.resolve("targets.json"), "[]");
    Path config = Files.writeString(dir.resolve("prometheus.yml"), withFileDiscovery(Files.readString(POD_JOB), targets));
    var result = Tools.promtool("check", "config", config.toString());
    assertThat(result.exit()).as(result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS");
  }

  /**
   * The https job as shipped, with file discovery as above. promtool reads it as strictly as Prometheus:
   * a misspelt field of basic_auth fails, and so does a password written into the job beside its
   * password_file.
   */
  @Test
  void promtoolAcceptsTheHttpsScrapeJob(@TempDir Path dir) throws Exception {
    Path targets = Files.writeString(dir.resolve("targets.json"), "[]");
    String job = withFileDiscovery(Files.readString(TlsVariantTest.HTTPS_JOB), targets);
    Path config = Files.writeString(dir.resolve("prometheus.yml"), job);
    var result = Tools.promtool("check", "config", config.toString());
    assertThat(result.exit()).as(result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS");

    Path misspelt = Files.writeString(dir.resolve("misspelt.yml"), job.replace("      password_file:", "      password_fil:"));
    var rejected = Tools.promtool("check", "config", misspelt.toString());
    assertThat(rejected.exit()).as(rejected.output()).isNotZero();
    assertThat(rejected.output()).contains("password_fil");
    Path both = Files.writeString(dir.resolve("both.yml"), job.replace("      password_file:", "      password: secret\n      password_file:"));
    var refused = Tools.promtool("check", "config", both.toString());
    assertThat(refused.exit()).as(refused.output()).isNotZero();
  }

  @Test
  void theComposeFileIsValidYamlAndEveryPathItMountsExists() throws Exception {
    JsonNode compose = Yaml.documents(LOCAL.resolve("compose.yaml")).get(0);
    JsonNode services = compose.path("services");
    assertThat(services.fieldNames()).toIterable().containsExactlyInAnyOrder("prometheus", "grafana");
    Map<String, Path> mounts = new LinkedHashMap<>(); // path in the container -> file on the host
    for (JsonNode service : services) {
      assertThat(service.path("image").asText()).matches("[a-z/]+:v?\\d+\\.\\d+\\.\\d+");
      for (JsonNode volume : service.path("volumes")) {
        String[] parts = volume.asText().split(":");
        Path source = LOCAL.resolve(parts[0]).normalize();
        assertThat(source).as(volume.asText()).exists();
        mounts.put(parts[1], source);
      }
    }
    // Prometheus reads the mounted config, and the config's relative rule path lands on the mounted rules.
    List<String> command = new ArrayList<>();
    services.path("prometheus").path("command").forEach(c -> command.add(c.asText()));
    String configInContainer = command.stream().filter(c -> c.startsWith("--config.file=")).findFirst().orElseThrow().substring("--config.file=".length());
    assertThat(mounts.get(configInContainer)).isEqualTo(LOCAL.resolve("prometheus.yml"));
    String rulePath = Yaml.documents(LOCAL.resolve("prometheus.yml")).get(0).path("rule_files").get(0).asText();
    String ruleInContainer = Path.of(configInContainer).getParent().resolve(rulePath).normalize().toString();
    assertThat(hostFileOf(mounts, ruleInContainer)).isEqualTo(Tools.ROOT.resolve("dashboards/rules/resync-meter.rules.yml"));
    // Grafana's provider reads the directory the dashboards are mounted in; its datasource is the prometheus service.
    String dashboardsDir = Yaml.documents(LOCAL.resolve("grafana/dashboards.yaml")).get(0).at("/providers/0/options/path").asText();
    for (Path dashboard : List.of(Tools.ROOT.resolve("dashboards/resync-cost-overview.json"), Tools.ROOT.resolve("dashboards/controller-detail.json"))) {
      assertThat(hostFileOf(mounts, dashboardsDir + "/" + dashboard.getFileName())).isEqualTo(dashboard);
    }
    assertThat(Yaml.documents(LOCAL.resolve("grafana/datasources.yaml")).get(0).at("/datasources/0/url").asText()).isEqualTo("http://prometheus:9090");
  }

  /** The host file that a path in a container shows, through the mount of it or of a directory above it. */
  private static Path hostFileOf(Map<String, Path> mounts, String inContainer) {
    for (Map.Entry<String, Path> mount : mounts.entrySet()) {
      if (inContainer.equals(mount.getKey())) {
        return mount.getValue();
      }
      if (inContainer.startsWith(mount.getKey() + "/")) {
        Path file = mount.getValue().resolve(inContainer.substring(mount.getKey().length() + 1));
        return Files.exists(file) ? file : null;
      }
    }
    return null;
  }
}
