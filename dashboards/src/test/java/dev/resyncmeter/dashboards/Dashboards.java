package dev.resyncmeter.dashboards;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.yaml.snakeyaml.Yaml;

/** The shipped dashboards and rule files, read as their users' tools read them. */
final class Dashboards {

  static final Path FOLDER = Path.of(System.getProperty("user.dir"));
  static final Path RULES = FOLDER.resolve("rules").resolve("resync-meter.rules.yml");
  static final Path RULE_TESTS = FOLDER.resolve("rules").resolve("resync-meter.rules.test.yml");

  /** What every panel and rule on effects says: the agent classifies writes to the Kubernetes API only. */
  static final String WRITES_NOT_SEEN = "Writes outside the Kubernetes API (a cloud API, a database) are not seen";

  private Dashboards() {}

  static List<Path> files() throws IOException {
    try (Stream<Path> files = Files.list(FOLDER)) {
      return files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
  }

  static JsonObject read(Path file) throws IOException {
    return JsonParser.parseString(Files.readString(file, StandardCharsets.UTF_8)).getAsJsonObject();
  }

  static List<JsonObject> panels(JsonObject dashboard) {
    List<JsonObject> panels = new ArrayList<>();
    for (JsonElement panel : dashboard.getAsJsonArray("panels")) {
      panels.add(panel.getAsJsonObject());
    }
    return panels;
  }

  static List<String> expressions(JsonObject panel) {
    List<String> exprs = new ArrayList<>();
    JsonArray targets = panel.getAsJsonArray("targets");
    if (targets != null) {
      for (JsonElement target : targets) {
        exprs.add(target.getAsJsonObject().get("expr").getAsString());
      }
    }
    return exprs;
  }

  /** Every rule of the rule file: record or alert name, and its expression. */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> rules() throws IOException {
    try (InputStream in = Files.newInputStream(RULES)) {
      Map<String, Object> file = new Yaml().load(in);
      List<Map<String, Object>> rules = new ArrayList<>();
      for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
        rules.addAll((List<Map<String, Object>>) group.get("rules"));
      }
      return rules;
    }
  }

  /** A query as Grafana sends it, with the dashboard's variables at the given values. */
  private static final Pattern APPLIES_TO = Pattern.compile("Applies to: ([^.]+)\\.$");

  /** The client libraries whose controllers feed a panel, as its description ends: "Applies to: a, b." */
  static List<String> librariesOf(JsonObject panel) {
    Matcher m = APPLIES_TO.matcher(panel.get("description").getAsString());
    return m.find() ? List.of(m.group(1).split(", ")) : List.of();
  }

  static String substitute(String expr, Map<String, String> variables) {
    String out = expr.replace("$__rate_interval", variables.getOrDefault("__rate_interval", "1m")).replace("$__range", variables.getOrDefault("__range", "5m"));
    for (Map.Entry<String, String> v : variables.entrySet()) {
      out = out.replace("$" + v.getKey(), v.getValue());
    }
    return out;
  }
}
