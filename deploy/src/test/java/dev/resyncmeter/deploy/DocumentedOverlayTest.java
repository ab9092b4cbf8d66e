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

    Files.createDirectories(users.resolve("my-controller"));
    Files.writeString(users.resolve("my-controller/deployment.yaml"), MY_CONTROLLER);
    Files.writeString(users.resolve("my-controller/kustomization.yaml"), "resources:\n  - deployment.yaml\n");
    Files.createSymbolicLink(users.resolve("resync-meter"), Tools.ROOT);
    Path overlay = Files.createDirectories(users.resolve("my-controller-with-resync-meter"));
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

  /** The page's yaml blocks that start with the overlay's file name. */
  private static List<String> overlays(Path page) throws IOException {
    List<String> overlays = new ArrayList<>();
    List<String> lines = Files.readAllLines(page);
    for (int i = 0; i + 1 < lines.size(); i++) {
      if (lines.get(i).equals("```yaml") && lines.get(i + 1).equals(OVERLAY_HEADER)) {
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
