package dev.resyncmeter.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every manifest, as written and as rendered, is what the Kubernetes and Prometheus Operator APIs accept. */
class ModelsTest {

  /** The kustomizations a user applies (components are rendered through the overlays that use them). */
  static List<Path> kustomizations() throws Exception {
    List<Path> found = new ArrayList<>();
    for (Path top : List.of(Tools.DEPLOY.resolve("kustomize"), Tools.ROOT.resolve("dashboards"))) {
      try (Stream<Path> files = Files.walk(top)) {
        files.filter(f -> f.getFileName().toString().equals("kustomization.yaml")).filter(f -> !f.toString().contains("/target/")).forEach(f -> found.add(f.getParent()));
      }
    }
    return found.stream().sorted().toList();
  }

  static boolean isComponent(Path dir) throws Exception {
    return Yaml.documents(dir.resolve("kustomization.yaml")).get(0).path("kind").asText().equals("Component");
  }

  @Test
  void everyKustomizationRendersAndEachComponentIsUsedByAnOverlayThatRenders() throws Exception {
    List<Path> dirs = kustomizations();
    assertThat(dirs).extracting(d -> Tools.ROOT.relativize(d).toString())
        .contains("deploy/kustomize/resync-meter", "deploy/kustomize/sample-controller", "deploy/kustomize/sample-controller-with-resync-meter",
            "deploy/kustomize/sample-controller-with-resync-meter-tls", "deploy/kustomize/monitoring", "dashboards");
    for (Path dir : dirs) {
      if (isComponent(dir)) {
        String name = dir.getFileName().toString();
        // used from beside it (../name), or as a part of the component around it (- name)
        assertThat(dirs).as("an overlay uses " + dir).anySatisfy(other -> {
          String uses = Files.readString(other.resolve("kustomization.yaml"));
          assertThat(uses.contains("../" + name) || (other.equals(dir.getParent()) && uses.contains("  - " + name + "\n"))).isTrue();
        });
      } else {
        assertThat(Yaml.documents(Tools.kustomize(dir))).as(dir.toString()).isNotEmpty();
      }
    }
  }

  @Test
  void everyRenderedObjectValidatesAgainstItsTypedModel() throws Exception {
    Map<String, List<String>> problems = new LinkedHashMap<>();
    int objects = 0;
    for (Path dir : kustomizations()) {
      if (isComponent(dir)) {
        continue;
      }
      for (JsonNode object : Yaml.documents(Tools.kustomize(dir))) {
        objects++;
        List<String> found = Models.problems(object);
        if (!found.isEmpty()) {
          problems.put(Tools.ROOT.relativize(dir) + ": " + Models.typeOf(object) + " " + object.at("/metadata/name").asText(), found);
        }
      }
    }
    assertThat(objects).isGreaterThanOrEqualTo(9);
    assertThat(problems).isEmpty();
  }

  @Test
  void everyManifestFileValidatesAgainstItsTypedModel() throws Exception {
    Map<String, List<String>> problems = new LinkedHashMap<>();
    List<String> localConfig = new ArrayList<>();
    int objects = 0;
    List<Path> kustomizeConfigurations = kustomizeConfigurations();
    assertThat(kustomizeConfigurations).extracting(f -> Tools.ROOT.relativize(f).toString())
        .containsExactly("deploy/kustomize/sample-controller-with-resync-meter-tls/kustomizeconfig.yaml");
    try (Stream<Path> files = Files.walk(Tools.DEPLOY.resolve("kustomize"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml") && !f.getFileName().toString().equals("kustomization.yaml"))
          .filter(f -> !kustomizeConfigurations.contains(f)).sorted().toList()) {
        for (JsonNode object : Yaml.documents(file)) {
          if (object.at("/metadata/annotations").path("config.kubernetes.io/local-config").asText().equals("true")) {
            // read by kustomize only, never sent to a cluster
            localConfig.add(Models.typeOf(object));
            continue;
          }
          objects++;
          List<String> found = Models.problems(object);
          if (!found.isEmpty()) {
            problems.put(Tools.ROOT.relativize(file) + ": " + Models.typeOf(object), found);
          }
        }
      }
    }
    assertThat(localConfig).containsExactlyInAnyOrder("resync-meter.dev/v1/ResyncMeterSettings", "resync-meter.dev/v1/ResyncMeterEntries");
    assertThat(objects).isGreaterThanOrEqualTo(7);
    assertThat(problems).isEmpty();
  }

  /** The files kustomizations name under {@code configurations:}: kustomize's own settings, never manifests. */
  static List<Path> kustomizeConfigurations() throws Exception {
    List<Path> found = new ArrayList<>();
    for (Path dir : kustomizations()) {
      for (JsonNode file : Yaml.documents(dir.resolve("kustomization.yaml")).get(0).path("configurations")) {
        found.add(dir.resolve(file.asText()).normalize());
      }
    }
    return found;
  }

  @Test
  void aMistypedFieldOrAValueOfTheWrongTypeIsCaught() throws Exception {
    String rendered = Tools.kustomize(Tools.DEPLOY.resolve("kustomize/sample-controller-with-resync-meter"));
    JsonNode deployment = Yaml.one(Yaml.documents(rendered.replace("containerPort: 9464", "containerPorts: 9464")), "Deployment", "sample-controller");
    assertThat(Models.problems(deployment)).containsExactly("unknown field Deployment.spec.template.spec.containers[0].ports[0].containerPorts");

    JsonNode quoted = Yaml.one(Yaml.documents(rendered.replace("replicas: 1", "replicas: \"1\"")), "Deployment", "sample-controller");
    assertThat(Models.problems(quoted)).singleElement().asString().startsWith("bad value at Deployment.spec.replicas: Cannot coerce String value");

    String podMonitor = Files.readString(Tools.DEPLOY.resolve("kustomize/monitoring/pod-monitor.yaml"));
    assertThat(Models.problems(Yaml.documents(podMonitor.replace("podMetricsEndpoints:", "podMetricEndpoints:")).get(0)))
        .containsExactly("unknown field PodMonitor.spec.podMetricEndpoints");

    String certificate = Files.readString(Tools.DEPLOY.resolve("kustomize/sample-controller-with-resync-meter-tls/certificate.yaml"));
    assertThat(Models.problems(Yaml.documents(certificate).get(0))).isEmpty();
    assertThat(Models.problems(Yaml.documents(certificate.replace("dnsNames:", "dnsName:")).get(0))).singleElement().asString()
        .startsWith("bad value at Certificate.spec.dnsName: Unrecognized field \"dnsName\"");
    assertThat(Models.problems(Yaml.documents(certificate.replace("- server auth", "- server-auth")).get(0))).singleElement().asString()
        .startsWith("bad value at Certificate.spec.usages[0]: Cannot deserialize value of type");
    assertThat(Models.problems(Yaml.documents(certificate.replace("secretName:", "# secretName:")).get(0))).singleElement().asString()
        .startsWith("bad value at Certificate.spec.secretName: Missing required creator property 'secretName'");
    assertThat(Models.problems(Yaml.documents(certificate.replace("size: 2048", "size: \"2048\"")).get(0))).singleElement().asString()
        .startsWith("bad value at Certificate.spec.privateKey.size: Cannot coerce String value");
    assertThat(Models.problems(Yaml.documents(certificate.replace("  name: sample-controller-metrics\n", "  nam: sample-controller-metrics\n")).get(0)))
        .containsExactly("unknown field Certificate.metadata.nam");
  }
}
