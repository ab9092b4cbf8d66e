package dev.resyncmeter.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The kustomize component adds the agent to a Deployment, and nothing else: each rendered Deployment
 * equals its input, field by field, with exactly the documented additions made.
 */
class ComponentTest {

  static final String AGENT_OPTION = "-javaagent:/resync-meter/resync-meter-agent.jar=port=9464";

  private static List<JsonNode> shapes;

  @BeforeAll
  static void render() throws Exception {
    shapes = Yaml.documents(Tools.kustomize(Tools.DEPLOY.resolve("src/test/resources/shapes")));
  }

  @Test
  void theSampleControllerGetsTheAgentAndIsOtherwiseUnchanged() throws Exception {
    JsonNode base = Yaml.one(Yaml.documents(Tools.kustomize(Tools.DEPLOY.resolve("kustomize/sample-controller"))), "Deployment", "sample-controller");
    List<JsonNode> overlay = Yaml.documents(Tools.kustomize(Tools.DEPLOY.resolve("kustomize/sample-controller-with-resync-meter")));
    JsonNode injected = Yaml.one(overlay, "Deployment", "sample-controller");

    assertThat(injected).isEqualTo(withResyncMeter(base));
    JsonNode controller = injected.at("/spec/template/spec/containers/0");
    assertThat(env(controller, "JAVA_TOOL_OPTIONS")).isEqualTo("-XX:MaxRAMPercentage=75 " + AGENT_OPTION);
  }

  @Test
  void theOverlayAddsNoOtherObjectThanTheSampleControllersOwn() throws Exception {
    List<JsonNode> base = Yaml.documents(Tools.kustomize(Tools.DEPLOY.resolve("kustomize/sample-controller")));
    List<JsonNode> overlay = Yaml.documents(Tools.kustomize(Tools.DEPLOY.resolve("kustomize/sample-controller-with-resync-meter")));
    // the settings object is local configuration: never sent to the cluster
    assertThat(overlay).extracting(o -> o.path("kind").asText() + "/" + o.at("/metadata/name").asText())
        .containsExactlyInAnyOrderElementsOf(base.stream().map(o -> o.path("kind").asText() + "/" + o.at("/metadata/name").asText()).toList());
    for (JsonNode object : base) {
      if (!object.path("kind").asText().equals("Deployment")) {
        assertThat(Yaml.one(overlay, object.path("kind").asText(), object.at("/metadata/name").asText())).isEqualTo(object);
      }
    }
  }

  @Test
  void theInitContainerCopiesTheJarAsANonRootUserWithARead_onlyRootAndBoundedResources() {
    JsonNode init = initContainer(Yaml.one(shapes, "Deployment", "plain"));
    assertThat(init.path("image").asText()).isEqualTo("resync-meter/agent:0.1.0");
    assertThat(init.path("command").toString()).isEqualTo("[\"cp\",\"/resync-meter-agent.jar\",\"/resync-meter/resync-meter-agent.jar\"]");
    assertThat(init.at("/volumeMounts/0/name").asText()).isEqualTo("resync-meter-agent");
    assertThat(init.at("/volumeMounts/0/mountPath").asText()).isEqualTo("/resync-meter");
    JsonNode security = init.path("securityContext");
    assertThat(security.path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(security.path("runAsUser").asInt()).isEqualTo(65532);
    assertThat(security.path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(security.path("allowPrivilegeEscalation").isBoolean()).isTrue();
    assertThat(security.path("allowPrivilegeEscalation").asBoolean()).isFalse();
    assertThat(security.at("/capabilities/drop").toString()).isEqualTo("[\"ALL\"]");
    for (String bound : List.of("requests", "limits")) {
      assertThat(init.at("/resources/" + bound + "/cpu").asText()).as(bound).isNotEmpty();
      assertThat(init.at("/resources/" + bound + "/memory").asText()).as(bound).isNotEmpty();
    }
  }

  @Test
  void aControllerWithoutEnvPortsOrMountsGetsThemCreatedAndItsOtherContainersAreUntouched() {
    JsonNode plain = Yaml.one(shapes, "Deployment", "plain");
    assertThat(plain).isEqualTo(withResyncMeter(input("plain")));
    // created: the JVM skips the leading space
    assertThat(env(plain.at("/spec/template/spec/containers/0"), "JAVA_TOOL_OPTIONS")).isEqualTo(" " + AGENT_OPTION);
    assertThat(env(plain.at("/spec/template/spec/containers/1"), "JAVA_TOOL_OPTIONS")).isEqualTo("-Xmx64m");
  }

  @Test
  void aControllerWithItsOwnEnvPortsMountsAndInitContainersKeepsThemAll() {
    JsonNode busy = Yaml.one(shapes, "Deployment", "busy");
    assertThat(busy).isEqualTo(withResyncMeter(input("busy")));
    assertThat(env(busy.at("/spec/template/spec/containers/0"), "JAVA_TOOL_OPTIONS")).isEqualTo("-Xss512k -XX:+UseG1GC " + AGENT_OPTION);
  }

  @Test
  void aDeploymentLabelledInjectFalseIsLeftAlone() {
    assertThat(Yaml.one(shapes, "Deployment", "opted-out")).isEqualTo(input("opted-out"));
  }

  /**
   * What the README says of JAVA_TOOL_OPTIONS set with valueFrom: the value is added beside it, and the
   * API server refuses a variable with both, so the apply fails instead of starting without the agent.
   */
  @Test
  void javaToolOptionsFromAConfigMapEndsWithBothValueAndValueFromWhichTheApiServerRefuses() {
    JsonNode variable = Yaml.one(shapes, "Deployment", "from-configmap").at("/spec/template/spec/containers/0/env/0");
    assertThat(variable.path("name").asText()).isEqualTo("JAVA_TOOL_OPTIONS");
    assertThat(variable.has("valueFrom")).isTrue();
    assertThat(variable.path("value").asText()).isEqualTo(" " + AGENT_OPTION);
  }

  private static JsonNode input(String name) {
    try {
      return Yaml.one(Yaml.documents(Tools.DEPLOY.resolve("src/test/resources/shapes/deployments.yaml")), "Deployment", name);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The documented additions, made by hand to the input: the pod's scrape label, the init container
   * and the volume (first), and in the first container the agent appended to JAVA_TOOL_OPTIONS (the
   * variable created last when there is none), the named port and the read-only mount (last).
   */
  static JsonNode withResyncMeter(JsonNode input) {
    ObjectNode deployment = Yaml.copy(input);
    ObjectNode template = (ObjectNode) deployment.with("spec").with("template");
    template.with("metadata").with("labels").put("resync-meter.dev/scrape", "true");
    ObjectNode pod = template.with("spec");
    prepend(pod.withArray("initContainers"), expectedInitContainer());
    ObjectNode volume = Yaml.MAPPER.createObjectNode().put("name", "resync-meter-agent");
    volume.putObject("emptyDir").put("sizeLimit", "16Mi");
    prepend(pod.withArray("volumes"), volume);
    ObjectNode controller = (ObjectNode) pod.withArray("containers").get(0);
    ArrayNode env = controller.withArray("env");
    ObjectNode javaToolOptions = null;
    for (JsonNode variable : env) {
      if (variable.path("name").asText().equals("JAVA_TOOL_OPTIONS")) {
        javaToolOptions = (ObjectNode) variable;
      }
    }
    if (javaToolOptions == null) {
      javaToolOptions = env.addObject().put("name", "JAVA_TOOL_OPTIONS");
    }
    javaToolOptions.put("value", javaToolOptions.path("value").asText("") + " " + AGENT_OPTION);
    controller.withArray("ports").addObject().put("name", "resync-meter").put("containerPort", 9464);
    controller.withArray("volumeMounts").addObject().put("name", "resync-meter-agent").put("mountPath", "/resync-meter").put("readOnly", true);
    return deployment;
  }

  private static ObjectNode expectedInitContainer() {
    try {
      return (ObjectNode) Yaml.MAPPER.readTree(
          String.join(
              "\n",
              "name: resync-meter-agent",
              "image: resync-meter/agent:0.1.0",
              "imagePullPolicy: IfNotPresent",
              "command: [cp, /resync-meter-agent.jar, /resync-meter/resync-meter-agent.jar]",
              "volumeMounts: [{name: resync-meter-agent, mountPath: /resync-meter}]",
              "resources: {requests: {cpu: 10m, memory: 16Mi}, limits: {cpu: 100m, memory: 32Mi}}",
              "securityContext:",
              "  runAsNonRoot: true",
              "  runAsUser: 65532",
              "  runAsGroup: 65532",
              "  readOnlyRootFilesystem: true",
              "  allowPrivilegeEscalation: false",
              "  capabilities: {drop: [ALL]}",
              "  seccompProfile: {type: RuntimeDefault}"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void prepend(ArrayNode array, JsonNode item) {
    array.insert(0, item);
  }

  private static JsonNode initContainer(JsonNode deployment) {
    for (JsonNode init : deployment.at("/spec/template/spec/initContainers")) {
      if (init.path("name").asText().equals("resync-meter-agent")) {
        return init;
      }
    }
    throw new AssertionError("no resync-meter-agent init container in " + deployment);
  }

  private static String env(JsonNode container, String name) {
    for (JsonNode variable : container.path("env")) {
      if (variable.path("name").asText().equals(name)) {
        return variable.path("value").asText(null);
      }
    }
    return null;
  }
}
