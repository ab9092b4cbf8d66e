package dev.resyncmeter.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The overlay the README and docs/deploy.md tell users to write, taken from the pages as they stand,
 * renders their controller with the agent: laid out as the pages say, beside a clone of this
 * repository named {@code resync-meter}.
 */
class DocumentedOverlayTest {

  private static final String OVERLAY_HEADER = "# my-controller-with-resync-meter/kustomization.yaml";
  private static final String OWN_SETTINGS_HEADER = OVERLAY_HEADER + ", with resync-meter on port 9500";

  /** A strategic merge patch of the kind users write in the same overlay. */
  private static final String REPLICAS_AND_RESOURCES_PATCH =
      """
      patches:
        - patch: |
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: my-controller}
            spec:
              replicas: 2
              template:
                spec:
                  containers:
                    - name: controller
                      resources: {requests: {cpu: 100m}}
      """;

  private static final String MY_CONTROLLER =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: my-controller
      spec:
        selector:
          matchLabels: {app: my-controller}
        template:
          metadata:
            labels: {app: my-controller}
          spec:
            containers:
              - name: controller
                image: my-controller:1.0
      """;

  @Test
  void theOverlayOfTheReadmeAndTheDeployGuideAddsTheAgentToYourController(@TempDir Path users) throws Exception {
    List<String> overlays = new ArrayList<>();
    overlays.addAll(overlays(Tools.ROOT.resolve("README.md")));
    overlays.addAll(overlays(Tools.ROOT.resolve("docs/deploy.md")));
    assertThat(overlays).as("the overlay in the README and in docs/deploy.md").hasSize(2);

    Path overlay = usersLayout(users);
    for (String kustomization : overlays) {
      Files.writeString(overlay.resolve("kustomization.yaml"), kustomization);
      JsonNode deployment = Yaml.one(Yaml.documents(Tools.kustomize(overlay)), "Deployment", "my-controller");
      JsonNode controller = deployment.at("/spec/template/spec/containers/0");
      assertThat(controller.at("/env/0/name").asText()).isEqualTo("JAVA_TOOL_OPTIONS");
      assertThat(controller.at("/env/0/value").asText()).endsWith(ComponentTest.AGENT_OPTION);
      assertThat(controller.at("/ports/0/name").asText()).isEqualTo("resync-meter");
      assertThat(deployment.at("/spec/template/spec/initContainers/0/name").asText()).isEqualTo("resync-meter-agent");
    }
  }

  @Test
  void aStrategicMergePatchOfTheDeploymentInTheSameOverlayKeepsThePortANumberAndTheMountABoolean(@TempDir Path users) throws Exception {
    Path overlay = usersLayout(users);
    Files.writeString(overlay.resolve("kustomization.yaml"), overlays(Tools.ROOT.resolve("README.md"), OVERLAY_HEADER).get(0) + REPLICAS_AND_RESOURCES_PATCH);

    JsonNode deployment = Yaml.one(Yaml.documents(Tools.kustomize(overlay)), "Deployment", "my-controller");

    assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
    JsonNode controller = deployment.at("/spec/template/spec/containers/0");
    assertThat(controller.at("/ports/0/containerPort").isInt()).as("containerPort %s", controller.at("/ports/0/containerPort")).isTrue();
    assertThat(controller.at("/volumeMounts/0/readOnly").isBoolean()).as("readOnly %s", controller.at("/volumeMounts/0/readOnly")).isTrue();
    assertThat(Models.problems(deployment)).isEmpty();
  }

  @Test
  void theOverlayWithItsOwnCopyOfTheSettingsServesOnThePortItNames(@TempDir Path users) throws Exception {
    List<String> overlays = overlays(Tools.ROOT.resolve("docs/deploy.md"), OWN_SETTINGS_HEADER);
    assertThat(overlays).as("the overlay with its own settings in docs/deploy.md").hasSize(1);
    Path overlay = usersLayout(users);
    String settings = Files.readString(Tools.DEPLOY.resolve("kustomize/resync-meter/settings.yaml"));
    Files.writeString(overlay.resolve("resync-meter-settings.yaml"), settings.replace("9464", "9500"));
    Files.writeString(overlay.resolve("kustomization.yaml"), overlays.get(0) + REPLICAS_AND_RESOURCES_PATCH);

    List<JsonNode> objects = Yaml.documents(Tools.kustomize(overlay));

    JsonNode deployment = Yaml.one(objects, "Deployment", "my-controller");
    JsonNode controller = deployment.at("/spec/template/spec/containers/0");
    assertThat(controller.at("/env/0/value").asText()).isEqualTo(" -javaagent:/resync-meter/resync-meter-agent.jar=port=9500");
    assertThat(controller.at("/ports/0/containerPort").asInt()).isEqualTo(9500);
    assertThat(Models.problems(deployment)).isEmpty();
    // the settings stay local configuration: only the controller's own objects are sent
    assertThat(objects).extracting(o -> o.path("kind").asText()).containsExactly("Deployment");
  }

  /** A user's controller and a clone of this repository side by side, and an empty overlay directory. */
  private static Path usersLayout(Path users) throws IOException {
    Files.createDirectories(users.resolve("my-controller"));
    Files.writeString(users.resolve("my-controller/deployment.yaml"), MY_CONTROLLER);
    Files.writeString(users.resolve("my-controller/kustomization.yaml"), "resources:\n  - deployment.yaml\n");
    Files.createSymbolicLink(users.resolve("resync-meter"), Tools.ROOT);
    return Files.createDirectories(users.resolve("my-controller-with-resync-meter"));
  }

  /** The page's yaml blocks that start with the overlay's file name. */
  private static List<String> overlays(Path page) throws IOException {
    return overlays(page, OVERLAY_HEADER);
  }

  /** The page's yaml blocks whose first line is {@code header}. */
  private static List<String> overlays(Path page, String header) throws IOException {
    List<String> overlays = new ArrayList<>();
    List<String> lines = Files.readAllLines(page);
    for (int i = 0; i + 1 < lines.size(); i++) {
      if (lines.get(i).equals("```yaml") && lines.get(i + 1).equals(header)) {
        StringBuilder block = new StringBuilder();
        for (i++; !lines.get(i).startsWith("```"); i++) {
          block.append(lines.get(i)).append('\n');
        }
        overlays.add(block.toString());
      }
    }
    return overlays;
  }
}
