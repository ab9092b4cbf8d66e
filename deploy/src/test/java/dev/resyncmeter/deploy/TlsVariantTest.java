package dev.resyncmeter.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The https variant, {@code deploy/kustomize/sample-controller-with-resync-meter-tls}, holds together
 * as rendered: every file the agent is told of (the {@code RESYNC_METER_*} variables) is one that a
 * volume mounted in the controller container really provides, from the Certificate's Secret or the
 * generated one; the PodMonitor scrapes the container port the agent serves, over https, checking the
 * certificate against the CA of the Certificate's Secret for a name the certificate carries, with the
 * user name and password the agent has. Each wrong wiring of a list, made on a copy of the rendering,
 * is caught by the same check.
 */
class TlsVariantTest {

  static final Path VARIANT = Tools.DEPLOY.resolve("kustomize/sample-controller-with-resync-meter-tls");
  static final Path HTTPS_JOB = Tools.DEPLOY.resolve("prometheus/scrape-resync-meter-pods-https.yml");
  /** What cert-manager writes into a Certificate's Secret ({@code ca.crt} from a CA issuer). */
  static final Set<String> CERT_MANAGER_KEYS = Set.of("tls.crt", "tls.key", "ca.crt");
  static final String PLACEHOLDER = "REPLACE-ME";

  private static List<JsonNode> variant;
  private static List<JsonNode> withoutTls;
  private static JsonNode plainPodMonitor;

  @BeforeAll
  static void render() throws Exception {
    variant = Yaml.documents(Tools.kustomize(VARIANT));
    withoutTls = Yaml.documents(Tools.kustomize(Tools.DEPLOY.resolve("kustomize/sample-controller-with-resync-meter")));
    plainPodMonitor = Yaml.one(Yaml.documents(Tools.kustomize(Tools.DEPLOY.resolve("kustomize/monitoring"))), "PodMonitor", "resync-meter");
  }

  @Test
  void theAgentsFilesTheMountsTheCertificateAndThePodMonitorFitTogether() {
    assertThat(problems(variant, plainPodMonitor)).isEmpty();
    // what the check above takes from the rendering, spelled out once
    JsonNode controller = deployment(variant).at("/spec/template/spec/containers/0");
    assertThat(env(controller, "RESYNC_METER_TLS_CERT").path("value").asText()).isEqualTo("/etc/resync-meter/tls/tls.crt");
    assertThat(env(controller, "RESYNC_METER_TLS_KEY").path("value").asText()).isEqualTo("/etc/resync-meter/tls/tls.key");
    assertThat(env(controller, "RESYNC_METER_BASIC_AUTH_PASSWORD_FILE").path("value").asText()).isEqualTo("/etc/resync-meter/basic-auth/password");
    assertThat(only(variant, "Certificate").at("/spec/secretName").asText()).isEqualTo("sample-controller-metrics-tls");
    assertThat(only(variant, "Secret").at("/metadata/name").asText()).startsWith("sample-controller-metrics-basic-auth-");
    assertThat(decoded(only(variant, "Secret"), "username")).isEqualTo("prometheus");
  }

  @Test
  void theVariantAddsTheCertificateTheSecretAndThePodMonitorAndChangesNothingElse() {
    assertThat(variant).extracting(TlsVariantTest::id)
        .containsExactlyInAnyOrderElementsOf(
            concat(withoutTls.stream().map(TlsVariantTest::id).toList(),
                List.of("Certificate/sample-controller-metrics", "PodMonitor/sample-controller-resync-meter", "Secret/" + only(variant, "Secret").at("/metadata/name").asText())));
    for (JsonNode object : withoutTls) {
      if (!object.path("kind").asText().equals("Deployment")) {
        assertThat(Yaml.one(variant, object.path("kind").asText(), object.at("/metadata/name").asText())).isEqualTo(object);
      }
    }
    // the Deployment without the documented additions is the one without TLS
    ObjectNode deployment = Yaml.copy(deployment(variant));
    ObjectNode template = (ObjectNode) deployment.with("spec").with("template");
    ((ObjectNode) template.at("/metadata/labels")).put("resync-meter.dev/scrape", "true");
    ObjectNode pod = (ObjectNode) template.with("spec");
    assertThat(((ObjectNode) pod.with("securityContext")).remove("fsGroup").asInt()).isEqualTo(65532);
    removeNamed(pod.withArray("volumes"), "resync-meter-tls", "resync-meter-basic-auth");
    ObjectNode controller = (ObjectNode) pod.withArray("containers").get(0);
    removeNamed(controller.withArray("volumeMounts"), "resync-meter-tls", "resync-meter-basic-auth");
    removeNamed(controller.withArray("env"), "RESYNC_METER_TLS_CERT", "RESYNC_METER_TLS_KEY", "RESYNC_METER_BASIC_AUTH_USER", "RESYNC_METER_BASIC_AUTH_PASSWORD_FILE");
    assertThat(deployment).isEqualTo(deployment(withoutTls));
  }

  /** A wrong wiring, made on a copy of the rendering, and what the check must say of it. */
  private record Mistake(String what, Consumer<List<ObjectNode>> make, String expected) {}

  @Test
  void eachWrongWiringIsCaught() {
    List<Mistake> mistakes =
        List.of(
            new Mistake("the Certificate writes another Secret", o -> spec(o, "Certificate").put("secretName", "sample-controller-tls"),
                "RESYNC_METER_TLS_CERT=/etc/resync-meter/tls/tls.crt is key tls.crt of Secret sample-controller-metrics-tls, not key tls.crt of Secret sample-controller-tls"),
            new Mistake("the key's variable names a file the volume does not hold", o -> env(o, "RESYNC_METER_TLS_KEY").put("value", "/etc/resync-meter/tls/key.pem"),
                "RESYNC_METER_TLS_KEY=/etc/resync-meter/tls/key.pem: no Secret volume mounted in the controller container provides that file"),
            new Mistake("the TLS volume leaves tls.key out", o -> ((ArrayNode) volume(o, "resync-meter-tls").at("/secret/items")).remove(1),
                "RESYNC_METER_TLS_KEY=/etc/resync-meter/tls/tls.key: no Secret volume"),
            new Mistake("the TLS volume is mounted elsewhere", o -> mount(o, "resync-meter-tls").put("mountPath", "/etc/tls"),
                "RESYNC_METER_TLS_CERT=/etc/resync-meter/tls/tls.crt: no Secret volume"),
            new Mistake("the password's variable names the TLS key", o -> env(o, "RESYNC_METER_BASIC_AUTH_PASSWORD_FILE").put("value", "/etc/resync-meter/tls/tls.key"),
                "RESYNC_METER_BASIC_AUTH_PASSWORD_FILE=/etc/resync-meter/tls/tls.key is key tls.key of Secret sample-controller-metrics-tls, not key password of Secret sample-controller-metrics-basic-auth-"),
            new Mistake("the password on the agent's command line", o -> env(o, "JAVA_TOOL_OPTIONS").put("value", env(o, "JAVA_TOOL_OPTIONS").path("value").asText() + ",basic-auth-password=hunter2"),
                "the controller's command line or JAVA_TOOL_OPTIONS holds a password"),
            new Mistake("no user name for the agent", o -> removeNamed(controller(o).withArray("env"), "RESYNC_METER_BASIC_AUTH_USER"),
                "RESYNC_METER_BASIC_AUTH_USER is not set"),
            new Mistake("the agent's user name from another key", o -> ((ObjectNode) env(o, "RESYNC_METER_BASIC_AUTH_USER").at("/valueFrom/secretKeyRef")).put("key", "password"),
                "RESYNC_METER_BASIC_AUTH_USER is not the user name the PodMonitor sends"),
            new Mistake("the PodMonitor scrapes another port", o -> endpoint(o).put("port", "metrics"),
                "the PodMonitor scrapes the port metrics, which the controller container does not name"),
            new Mistake("the agent serves another port than the named one", o -> env(o, "JAVA_TOOL_OPTIONS").put("value", env(o, "JAVA_TOOL_OPTIONS").path("value").asText().replace("port=9464", "port=9500")),
                "the port resync-meter is 9464, but the agent serves 9500"),
            new Mistake("http", o -> endpoint(o).put("scheme", "http"), "the PodMonitor's scheme is http, not https"),
            new Mistake("the CA is the server's own certificate", o -> ((ObjectNode) endpoint(o).at("/tlsConfig/ca/secret")).put("key", "tls.crt"),
                "the PodMonitor checks the certificate against key tls.crt of Secret sample-controller-metrics-tls, not ca.crt of sample-controller-metrics-tls"),
            new Mistake("a server name the certificate lacks", o -> ((ObjectNode) endpoint(o).with("tlsConfig")).put("serverName", "sample-controller"),
                "the PodMonitor's serverName sample-controller is none of the Certificate's dnsNames"),
            new Mistake("no check of the certificate", o -> ((ObjectNode) endpoint(o).with("tlsConfig")).put("insecureSkipVerify", true),
                "the PodMonitor skips the certificate's check"),
            new Mistake("the password from a key the Secret lacks", o -> ((ObjectNode) endpoint(o).at("/basicAuth/password")).put("key", "pass"),
                "no Secret in the rendering provides key pass of sample-controller-metrics-basic-auth-"),
            new Mistake("the user name from a Secret nothing makes", o -> ((ObjectNode) endpoint(o).at("/basicAuth/username")).put("name", "prometheus-basic-auth"),
                "no Secret in the rendering provides key username of prometheus-basic-auth"),
            new Mistake("the PodMonitor in the monitoring namespace", o -> ((ObjectNode) find(o, "PodMonitor").with("metadata")).put("namespace", "monitoring"),
                "the PodMonitor is in monitoring, not in resync-meter-demo"),
            new Mistake("no server auth", o -> spec(o, "Certificate").putArray("usages").add("client auth"), "the Certificate's usages lack server auth"),
            new Mistake("the Certificate in another namespace", o -> ((ObjectNode) find(o, "Certificate").with("metadata")).put("namespace", "default"),
                "the Certificate is in default, not in resync-meter-demo"),
            new Mistake("the pod keeps the plain label", o -> ((ObjectNode) find(o, "Deployment").at("/spec/template/metadata/labels")).put("resync-meter.dev/scrape", "true"),
                "the plain-http PodMonitor selects the pod too"),
            new Mistake("world-readable secret files", o -> ((ObjectNode) volume(o, "resync-meter-basic-auth").with("secret")).put("defaultMode", 0644),
                "the files of volume resync-meter-basic-auth are readable by every user (mode 0644)"),
            new Mistake("files of mode 0440 without the pod's fsGroup", o -> ((ObjectNode) find(o, "Deployment").at("/spec/template/spec/securityContext")).remove("fsGroup"),
                "the files of volume resync-meter-tls are not readable by the controller's user (mode 0440"));
    assertThat(mistakes).extracting(Mistake::what).doesNotHaveDuplicates();
    for (Mistake mistake : mistakes) {
      List<ObjectNode> copy = variant.stream().map(Yaml::copy).toList();
      mistake.make().accept(copy);
      assertThat(problems(List.copyOf(copy), plainPodMonitor)).as(mistake.what()).anySatisfy(p -> assertThat(p).contains(mistake.expected()));
    }
  }

  @Test
  void theHttpsScrapeJobIsThePlainPodJobWithTheVariantsNameCaAndCredentials() throws Exception {
    JsonNode https = Yaml.documents(HTTPS_JOB).get(0).at("/scrape_configs/0");
    JsonNode plain = Yaml.documents(PrometheusConfigsTest.POD_JOB).get(0).at("/scrape_configs/0");
    assertThat(Yaml.documents(HTTPS_JOB).get(0).at("/scrape_configs").size()).isEqualTo(1);
    JsonNode pod = deployment(variant).at("/spec/template");
    assertThat(https.path("scheme").asText()).isEqualTo("https");
    assertThat(texts(only(variant, "Certificate").at("/spec/dnsNames"))).contains(https.at("/tls_config/server_name").asText());
    assertThat(https.at("/tls_config/ca_file").asText()).endsWith("/ca.crt");
    assertThat(https.at("/basic_auth/username").asText()).isEqualTo(decoded(only(variant, "Secret"), "username"));
    assertThat(https.at("/basic_auth/password_file").asText()).isNotEmpty();
    assertThat(https.at("/basic_auth").has("password")).isFalse();

    // the plain job with the label "https", the variant's namespace and name kept, and the settings above
    ObjectNode expected = Yaml.copy(plain);
    expected.put("job_name", "resync-meter-https");
    ArrayNode relabel = expected.withArray("relabel_configs");
    assertThat(relabel.get(0).path("source_labels").toString()).isEqualTo("[\"__meta_kubernetes_pod_label_resync_meter_dev_scrape\"]");
    ((ObjectNode) relabel.get(0)).put("regex", pod.at("/metadata/labels").path("resync-meter.dev/scrape").asText());
    ObjectNode keep = relabel.insertObject(1);
    keep.putArray("source_labels").add("__meta_kubernetes_namespace").add("__meta_kubernetes_pod_label_app_kubernetes_io_name");
    keep.put("regex", deployment(variant).at("/metadata/namespace").asText() + ";" + pod.at("/metadata/labels").path("app.kubernetes.io/name").asText());
    keep.put("action", "keep");
    ObjectNode actual = Yaml.copy(https);
    actual.remove(List.of("scheme", "tls_config", "basic_auth"));
    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void theDeployGuideTellsToReplaceThePlaceholderPasswordAndTheIssuerAndHowToCheck() throws Exception {
    Path passwordFile = VARIANT.resolve("basic-auth-password");
    assertThat(passwordFile).hasContent(PLACEHOLDER);
    assertThat(decoded(only(variant, "Secret"), "password")).isEqualTo(PLACEHOLDER);
    String guide = Files.readString(Tools.ROOT.resolve("docs/deploy.md"));
    String section = guide.substring(guide.indexOf("## Over https, with basic auth"), guide.indexOf("## Rules and dashboards in the cluster"));
    String file = Tools.ROOT.relativize(passwordFile).toString();
    assertThat(section)
        .contains("`" + PLACEHOLDER + "`", "| tr -d '\\n' > " + file)
        .contains("`" + only(variant, "Certificate").at("/spec/issuerRef/name").asText() + "`", "issuerRef");

    // the curl check: the CA of the Certificate's Secret, the certificate's name, the agent's port, the user name
    JsonNode certificate = only(variant, "Certificate");
    String serverName = endpoint(variant).at("/tlsConfig/serverName").asText();
    String port = String.valueOf(agentPort(deployment(variant).at("/spec/template/spec/containers/0")));
    assertThat(section)
        .contains("get secret " + certificate.at("/spec/secretName").asText() + " -o jsonpath='{.data.ca\\.crt}'")
        .contains("port-forward deploy/" + deployment(variant).at("/metadata/name").asText() + " " + port + ":" + port)
        .contains("curl --cacert ca.crt --resolve " + serverName + ":" + port + ":127.0.0.1")
        .contains("-u \"" + decoded(only(variant, "Secret"), "username") + ":$PASSWORD\" https://" + serverName + ":" + port + "/metrics")
        .contains("PASSWORD=$(cat " + file + ")");

    // the CA to try it with makes the Issuer the Certificate names, in its namespace
    String caBlock = section.substring(section.indexOf("# ca.yaml"), section.indexOf("```", section.indexOf("# ca.yaml")));
    List<JsonNode> ca = Yaml.documents(caBlock.lines().map(l -> l.startsWith("   ") ? l.substring(3) : l).reduce("", (a, b) -> a + b + "\n"));
    JsonNode issuer = ca.get(ca.size() - 1);
    assertThat(issuer.path("kind").asText()).isEqualTo(certificate.at("/spec/issuerRef/kind").asText());
    assertThat(issuer.at("/metadata/name").asText()).isEqualTo(certificate.at("/spec/issuerRef/name").asText());
    assertThat(issuer.at("/metadata/namespace").asText()).isEqualTo(certificate.at("/metadata/namespace").asText());
    assertThat(issuer.at("/spec/ca/secretName").asText()).isEqualTo(Yaml.one(ca, "Certificate", "resync-meter-ca").at("/spec/secretName").asText());
    assertThat(Models.problems(Yaml.one(ca, "Certificate", "resync-meter-ca"))).isEmpty();
  }

  // ---- the check ----

  /** A key of a Secret in a namespace. */
  record SecretKey(String namespace, String name, String key) {
    @Override
    public String toString() {
      return "key " + key + " of Secret " + name;
    }
  }

  /** What is wired wrong in the rendered variant: an empty list when nothing is. */
  static List<String> problems(List<? extends JsonNode> objects, JsonNode plainPodMonitor) {
    List<String> problems = new ArrayList<>();
    JsonNode deployment = deployment(objects);
    JsonNode certificate = only(objects, "Certificate");
    JsonNode podMonitor = only(objects, "PodMonitor");
    String namespace = deployment.at("/metadata/namespace").asText();
    JsonNode pod = deployment.at("/spec/template");
    JsonNode controller = pod.at("/spec/containers/0");
    String tlsSecret = certificate.at("/spec/secretName").asText();

    // the certificate
    if (!certificate.at("/metadata/namespace").asText().equals(namespace)) {
      problems.add("the Certificate is in " + certificate.at("/metadata/namespace").asText() + ", not in " + namespace + " with the pod that mounts its Secret");
    }
    if (!texts(certificate.at("/spec/usages")).contains("server auth")) {
      problems.add("the Certificate's usages lack server auth");
    }
    if (certificate.at("/spec/issuerRef/name").asText().isEmpty()) {
      problems.add("the Certificate names no issuer");
    }

    // the agent's files and user name
    JsonNode endpoint = podMonitor.at("/spec/podMetricsEndpoints");
    if (endpoint.size() != 1) {
      problems.add("the PodMonitor has " + endpoint.size() + " endpoints, not 1");
    }
    endpoint = endpoint.path(0);
    String monitorNamespace = podMonitor.at("/metadata/namespace").asText();
    SecretKey password = secretKey(monitorNamespace, endpoint.at("/basicAuth/password"));
    SecretKey username = secretKey(monitorNamespace, endpoint.at("/basicAuth/username"));
    SecretKey ca = new SecretKey(monitorNamespace, endpoint.at("/tlsConfig/ca/secret/name").asText(), endpoint.at("/tlsConfig/ca/secret/key").asText());
    expectFile(problems, pod, controller, namespace, "RESYNC_METER_TLS_CERT", new SecretKey(namespace, tlsSecret, "tls.crt"));
    expectFile(problems, pod, controller, namespace, "RESYNC_METER_TLS_KEY", new SecretKey(namespace, tlsSecret, "tls.key"));
    expectFile(problems, pod, controller, namespace, "RESYNC_METER_BASIC_AUTH_PASSWORD_FILE", password);
    JsonNode user = env(controller, "RESYNC_METER_BASIC_AUTH_USER");
    if (user == null) {
      problems.add("RESYNC_METER_BASIC_AUTH_USER is not set");
    } else if (!secretKey(namespace, user.at("/valueFrom/secretKeyRef")).equals(username)) {
      problems.add("RESYNC_METER_BASIC_AUTH_USER is not the user name the PodMonitor sends (" + username + ")");
    }
    String commandLine = texts(controller.path("command")) + " " + texts(controller.path("args")) + " "
        + (env(controller, "JAVA_TOOL_OPTIONS") == null ? "" : env(controller, "JAVA_TOOL_OPTIONS").path("value").asText());
    if (commandLine.replace("basic-auth-password-file=", "").contains("password")) {
      problems.add("the controller's command line or JAVA_TOOL_OPTIONS holds a password: " + commandLine);
    }

    // every Secret key named, by the monitor or the pod's volumes, is made by the rendering
    List<SecretKey> named = new ArrayList<>(List.of(password, username, ca));
    for (JsonNode volume : pod.at("/spec/volumes")) {
      if (volume.has("secret")) {
        for (JsonNode item : volume.at("/secret/items")) {
          named.add(new SecretKey(namespace, volume.at("/secret/secretName").asText(), item.path("key").asText()));
        }
        if (!volume.at("/secret").has("items") && keysOf(objects, namespace, volume.at("/secret/secretName").asText()) == null) {
          problems.add("volume " + volume.path("name").asText() + " mounts Secret " + volume.at("/secret/secretName").asText() + ", which nothing in the rendering makes");
        }
        secretFileMode(problems, pod, volume);
      }
    }
    for (SecretKey key : named) {
      Set<String> keys = keysOf(objects, key.namespace(), key.name());
      if (keys == null || !keys.contains(key.key())) {
        problems.add("no Secret in the rendering provides key " + key.key() + " of " + key.name() + " in " + key.namespace());
      }
    }

    // the monitor
    if (!monitorNamespace.equals(namespace)) {
      problems.add("the PodMonitor is in " + monitorNamespace + ", not in " + namespace + ": the Prometheus Operator reads the Secrets it names from its own namespace");
    }
    if (!endpoint.path("scheme").asText().equals("https")) {
      problems.add("the PodMonitor's scheme is " + endpoint.path("scheme").asText("(none)") + ", not https");
    }
    if (!ca.equals(new SecretKey(namespace, tlsSecret, "ca.crt"))) {
      problems.add("the PodMonitor checks the certificate against " + ca + ", not ca.crt of " + tlsSecret);
    }
    String serverName = endpoint.at("/tlsConfig/serverName").asText();
    if (!texts(certificate.at("/spec/dnsNames")).contains(serverName)) {
      problems.add("the PodMonitor's serverName " + serverName + " is none of the Certificate's dnsNames " + texts(certificate.at("/spec/dnsNames")));
    }
    if (endpoint.at("/tlsConfig/insecureSkipVerify").asBoolean(false)) {
      problems.add("the PodMonitor skips the certificate's check (insecureSkipVerify)");
    }
    if (!endpoint.path("path").asText().equals("/metrics")) {
      problems.add("the PodMonitor scrapes " + endpoint.path("path").asText() + ", not /metrics");
    }
    JsonNode port = null;
    for (JsonNode candidate : controller.path("ports")) {
      if (candidate.path("name").asText().equals(endpoint.path("port").asText())) {
        port = candidate;
      }
    }
    if (port == null) {
      problems.add("the PodMonitor scrapes the port " + endpoint.path("port").asText() + ", which the controller container does not name");
    } else if (port.path("containerPort").asInt() != agentPort(controller)) {
      problems.add("the port " + port.path("name").asText() + " is " + port.path("containerPort").asInt() + ", but the agent serves " + agentPort(controller));
    }
    if (!selects(podMonitor, pod)) {
      problems.add("the PodMonitor does not select the pod");
    }
    if (selects(plainPodMonitor, pod)) {
      problems.add("the plain-http PodMonitor selects the pod too, and would scrape its https port over http");
    }
    return problems;
  }

  /** The variable names a file that a mounted volume provides from {@code expected}. */
  private static void expectFile(List<String> problems, JsonNode pod, JsonNode container, String namespace, String variable, SecretKey expected) {
    JsonNode set = env(container, variable);
    if (set == null) {
      problems.add(variable + " is not set");
      return;
    }
    String path = set.path("value").asText();
    SecretKey provided = mountedSecretFile(pod, container, namespace, path);
    if (provided == null) {
      problems.add(variable + "=" + path + ": no Secret volume mounted in the controller container provides that file");
    } else if (!provided.equals(expected)) {
      problems.add(variable + "=" + path + " is " + provided + ", not " + expected);
    }
  }

  /** The Secret key that the file at {@code path} of the container shows, or null when none does. */
  private static SecretKey mountedSecretFile(JsonNode pod, JsonNode container, String namespace, String path) {
    for (JsonNode mount : container.path("volumeMounts")) {
      String directory = mount.path("mountPath").asText();
      if (mount.has("subPath") || !path.startsWith(directory + "/")) {
        continue;
      }
      String file = path.substring(directory.length() + 1);
      for (JsonNode volume : pod.at("/spec/volumes")) {
        if (!volume.path("name").asText().equals(mount.path("name").asText()) || !volume.has("secret")) {
          continue;
        }
        String secret = volume.at("/secret/secretName").asText();
        if (!volume.at("/secret").has("items")) {
          return file.contains("/") ? null : new SecretKey(namespace, secret, file);
        }
        for (JsonNode item : volume.at("/secret/items")) {
          if (item.path("path").asText().equals(file)) {
            return new SecretKey(namespace, secret, item.path("key").asText());
          }
        }
      }
    }
    return null;
  }

  /**
   * A Secret volume's files are readable by the controller's user (other than root) and by no other:
   * the kubelet gives them the pod's fsGroup as their group.
   */
  private static void secretFileMode(List<String> problems, JsonNode pod, JsonNode volume) {
    int mode = volume.at("/secret/defaultMode").asInt(0644);
    String name = volume.path("name").asText();
    if ((mode & 0007) != 0) {
      problems.add("the files of volume " + name + " are readable by every user (mode 0" + Integer.toOctalString(mode) + ")");
    }
    boolean fsGroup = pod.at("/spec/securityContext/fsGroup").isInt();
    if ((mode & 0004) == 0 && !((mode & 0040) != 0 && fsGroup)) {
      problems.add("the files of volume " + name + " are not readable by the controller's user (mode 0" + Integer.toOctalString(mode) + (fsGroup ? "" : ", no fsGroup") + ")");
    }
  }

  /** The keys of the Secret a rendered Secret or a Certificate makes, or null when nothing makes it. */
  private static Set<String> keysOf(List<? extends JsonNode> objects, String namespace, String name) {
    for (JsonNode object : objects) {
      if (!object.at("/metadata/namespace").asText().equals(namespace)) {
        continue;
      }
      if (object.path("kind").asText().equals("Secret") && object.at("/metadata/name").asText().equals(name)) {
        Set<String> keys = new java.util.TreeSet<>();
        object.path("data").fieldNames().forEachRemaining(keys::add);
        object.path("stringData").fieldNames().forEachRemaining(keys::add);
        return keys;
      }
      if (object.path("kind").asText().equals("Certificate") && object.at("/spec/secretName").asText().equals(name)) {
        return CERT_MANAGER_KEYS;
      }
    }
    return null;
  }

  /** The monitor's matchLabels are all on the pod (no namespaceSelector: the monitor's namespace). */
  private static boolean selects(JsonNode podMonitor, JsonNode pod) {
    JsonNode labels = pod.at("/metadata/labels");
    for (Map.Entry<String, JsonNode> label : podMonitor.at("/spec/selector/matchLabels").properties()) {
      if (!labels.path(label.getKey()).asText("\0").equals(label.getValue().asText())) {
        return false;
      }
    }
    return true;
  }

  /** The port the agent serves: {@code port=} of its option in JAVA_TOOL_OPTIONS, else its default. */
  static int agentPort(JsonNode controller) {
    JsonNode options = env(controller, "JAVA_TOOL_OPTIONS");
    Matcher port = Pattern.compile("-javaagent:\\S*resync-meter-agent\\.jar=\\S*?\\bport=(\\d+)").matcher(options == null ? "" : options.path("value").asText());
    return port.find() ? Integer.parseInt(port.group(1)) : 9464;
  }

  private static SecretKey secretKey(String namespace, JsonNode selector) {
    return new SecretKey(namespace, selector.path("name").asText(), selector.path("key").asText());
  }

  // ---- reading and changing the rendering ----

  private static JsonNode deployment(List<? extends JsonNode> objects) {
    return only(objects, "Deployment");
  }

  private static JsonNode only(List<? extends JsonNode> objects, String kind) {
    List<? extends JsonNode> found = objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
    assertThat(found).as("the " + kind + " of the variant").hasSize(1);
    return found.get(0);
  }

  private static ObjectNode find(List<ObjectNode> objects, String kind) {
    return (ObjectNode) only(objects, kind);
  }

  private static ObjectNode spec(List<ObjectNode> objects, String kind) {
    return (ObjectNode) find(objects, kind).path("spec");
  }

  private static ObjectNode controller(List<ObjectNode> objects) {
    return (ObjectNode) find(objects, "Deployment").at("/spec/template/spec/containers/0");
  }

  private static ObjectNode env(List<ObjectNode> objects, String name) {
    return (ObjectNode) env(controller(objects), name);
  }

  private static ObjectNode volume(List<ObjectNode> objects, String name) {
    return named(find(objects, "Deployment").at("/spec/template/spec/volumes"), name);
  }

  private static ObjectNode mount(List<ObjectNode> objects, String name) {
    return named(controller(objects).path("volumeMounts"), name);
  }

  private static ObjectNode endpoint(List<? extends JsonNode> objects) {
    return (ObjectNode) only(objects, "PodMonitor").at("/spec/podMetricsEndpoints/0");
  }

  private static JsonNode env(JsonNode container, String name) {
    return named(container.path("env"), name);
  }

  private static ObjectNode named(JsonNode array, String name) {
    for (JsonNode item : array) {
      if (item.path("name").asText().equals(name)) {
        return (ObjectNode) item;
      }
    }
    return null;
  }

  private static void removeNamed(ArrayNode array, String... names) {
    Set<String> gone = Set.of(names);
    int before = array.size();
    for (int i = array.size() - 1; i >= 0; i--) {
      if (gone.contains(array.get(i).path("name").asText())) {
        array.remove(i);
      }
    }
    assertThat(before - array.size()).as("removed " + gone).isEqualTo(names.length);
  }

  private static List<String> texts(JsonNode array) {
    List<String> texts = new ArrayList<>();
    array.forEach(item -> texts.add(item.asText()));
    return texts;
  }

  private static String decoded(JsonNode secret, String key) {
    return new String(Base64.getDecoder().decode(secret.at("/data/" + key).asText()), StandardCharsets.UTF_8);
  }

  private static String id(JsonNode object) {
    return object.path("kind").asText() + "/" + object.at("/metadata/name").asText();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
