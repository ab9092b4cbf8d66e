package dev.resyncmeter.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The dashboard conventions (grafana/dashboard-linter's and the sidecar's): a datasource variable and
 * every query on it, no import-only inputs, titles, descriptions and units, unique ids, a grid without
 * overlaps, a table of several queries joined into one frame, rates over {@code $__rate_interval},
 * counters only inside rate/increase, gauges never.
 */
class DashboardLintTest {

  static final JsonElement DATASOURCE = JsonParser.parseString("{\"type\":\"prometheus\",\"uid\":\"${datasource}\"}");
  static final Set<String> GAUGES =
      Set.of("workqueue_depth", "workqueue_unfinished_work_seconds", "workqueue_longest_running_processor_seconds", "informer_resync_period_seconds", "resync_meter_info", "resync_meter_instrumentation_active", "up");
  static final Set<String> RATE_FUNCTIONS = Set.of("rate", "irate", "increase");
  private static final Pattern RANGE = Pattern.compile("(rate|irate|increase)\\([^\\[]*\\[([^\\]]+)\\]");
  /** The labels of a {@code by (...)} or {@code on (...)} clause. */
  private static final Pattern GROUPING = Pattern.compile("\\b(by|on) \\(([^)]*)\\)");

  static List<Path> dashboards() throws Exception {
    return Dashboards.files();
  }

  @Test
  void bothDashboardsShipWithStableUniqueUids() throws Exception {
    List<String> uids = new ArrayList<>();
    for (Path file : Dashboards.files()) {
      uids.add(Dashboards.read(file).get("uid").getAsString());
    }
    assertThat(uids).containsExactlyInAnyOrder("resync-meter-overview", "resync-meter-controller-detail");
  }

  @ParameterizedTest
  @MethodSource("dashboards")
  void hasADatasourceVariableAndNoImportOnlyInputs(Path file) throws Exception {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    JsonObject dashboard = Dashboards.read(file);
    assertThat(dashboard.has("__inputs")).isFalse();
    assertThat(text).doesNotContain("${DS_").doesNotContain("__inputs");
    List<JsonObject> variables = variables(dashboard);
    assertThat(variables).anySatisfy(v -> {
      assertThat(v.get("name").getAsString()).isEqualTo("datasource");
      assertThat(v.get("type").getAsString()).isEqualTo("datasource");
      assertThat(v.get("query").getAsString()).isEqualTo("prometheus");
    });
    assertThat(variables).extracting(v -> v.get("name").getAsString()).contains("job", "namespace", "pod");
    for (JsonObject variable : variables) {
      if (variable.get("type").getAsString().equals("query")) {
        assertThat(variable.get("datasource")).as(variable.get("name").toString()).isEqualTo(DATASOURCE);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("dashboards")
  void everyPanelAndQueryIsOnTheDatasourceVariable(Path file) throws Exception {
    for (JsonObject panel : Dashboards.panels(Dashboards.read(file))) {
      assertThat(panel.get("datasource")).as(title(panel)).isEqualTo(DATASOURCE);
      for (JsonElement target : panel.getAsJsonArray("targets")) {
        assertThat(target.getAsJsonObject().get("datasource")).as(title(panel)).isEqualTo(DATASOURCE);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("dashboards")
  void everyPanelHasATitleADescriptionAUnitAndAQuery(Path file) throws Exception {
    for (JsonObject panel : Dashboards.panels(Dashboards.read(file))) {
      assertThat(panel.get("title").getAsString()).isNotBlank();
      assertThat(panel.get("description").getAsString()).as(title(panel)).isNotBlank();
      assertThat(panel.getAsJsonObject("fieldConfig").getAsJsonObject("defaults").get("unit").getAsString()).as(title(panel)).isNotBlank();
      assertThat(Dashboards.expressions(panel)).as(title(panel)).isNotEmpty();
    }
  }

  @ParameterizedTest
  @MethodSource("dashboards")
  void everyPanelSaysWhichClientLibrariesFeedIt(Path file) throws Exception {
    for (JsonObject panel : Dashboards.panels(Dashboards.read(file))) {
      assertThat(Dashboards.librariesOf(panel))
          .as(title(panel) + ": its description ends with 'Applies to: <libraries>.'")
          .isNotEmpty()
          .isSubsetOf("client-java", "fabric8", "JOSDK");
    }
  }

  @ParameterizedTest
  @MethodSource("dashboards")
  void panelIdsAreUniqueAndTheGridHasNoOverlaps(Path file) throws Exception {
    List<JsonObject> panels = Dashboards.panels(Dashboards.read(file));
    Set<Integer> ids = new HashSet<>();
    Set<String> cells = new HashSet<>();
    for (JsonObject panel : panels) {
      assertThat(ids.add(panel.get("id").getAsInt())).as("unique id of " + title(panel)).isTrue();
      JsonObject grid = panel.getAsJsonObject("gridPos");
      int x = grid.get("x").getAsInt(), y = grid.get("y").getAsInt(), w = grid.get("w").getAsInt(), h = grid.get("h").getAsInt();
      assertThat(x + w).as("width of " + title(panel)).isLessThanOrEqualTo(24);
      for (int i = x; i < x + w; i++) {
        for (int j = y; j < y + h; j++) {
          assertThat(cells.add(i + "," + j)).as(title(panel) + " overlaps at " + i + "," + j).isTrue();
        }
      }
    }
  }

  @ParameterizedTest
  @MethodSource("dashboards")
  void queriesSelectTheJobAndRateOverTheRateInterval(Path file) throws Exception {
    for (JsonObject panel : Dashboards.panels(Dashboards.read(file))) {
      for (String expr : Dashboards.expressions(panel)) {
        assertThat(expr).as(title(panel)).contains("job=~\"$job\"");
        Matcher m = RANGE.matcher(expr);
        while (m.find()) {
          String range = m.group(2);
          if (m.group(1).equals("increase")) {
            assertThat(range).as(title(panel) + ": " + expr).isIn("$__rate_interval", "$__range");
          } else {
            assertThat(range).as(title(panel) + ": " + expr).isEqualTo("$__rate_interval");
          }
        }
      }
    }
  }

  @ParameterizedTest
  @MethodSource("dashboards")
  void countersOnlyInsideRateAndGaugesNever(Path file) throws Exception {
    for (JsonObject panel : Dashboards.panels(Dashboards.read(file))) {
      for (String expr : Dashboards.expressions(panel)) {
        assertCountersAndGauges(title(panel), expr);
      }
    }
  }

  /** Both dashboards: per controller and verb, the no-op triggers only, periodic beside them in a query of its own. */
  @ParameterizedTest
  @MethodSource("dashboards")
  void bothShowTheApiRequestsCausedByNoOpUpdatesPerControllerAndVerb(Path file) throws Exception {
    JsonObject dashboard = Dashboards.read(file);
    JsonObject panel =
        Dashboards.panels(dashboard).stream().filter(p -> title(p).equals("API requests caused by no-op updates")).findFirst().orElseThrow();
    List<String> exprs = Dashboards.expressions(panel);
    assertThat(exprs.get(0)).startsWith("sum by (controller, verb) (rate(controller_reconcile_api_requests_total{").contains("trigger=~\".*_noop\"");
    assertThat(exprs).filteredOn(e -> e.contains("periodic")).allSatisfy(e -> assertThat(e).doesNotContain("_noop"));
    if (variables(dashboard).stream().anyMatch(v -> v.get("name").getAsString().equals("controller"))) {
      assertThat(exprs).allSatisfy(e -> assertThat(e).contains("controller=~\"$controller\""));
    }
  }

  /** The agent sees writes to the Kubernetes API only: every panel on effects says so. */
  @ParameterizedTest
  @MethodSource("dashboards")
  void everyPanelOnEffectsSaysThatWritesOutsideTheKubernetesApiAreNotSeen(Path file) throws Exception {
    for (JsonObject panel : Dashboards.panels(Dashboards.read(file))) {
      if (Dashboards.expressions(panel).stream().anyMatch(e -> e.contains("controller_reconcile_effect_total"))) {
        assertThat(panel.get("description").getAsString()).as(title(panel)).contains(Dashboards.WRITES_NOT_SEEN);
      }
    }
  }

  /** Waste or repair: no-op triggers and periodic each in a query of their own, never folded together. */
  @Test
  void theOverviewShowsEffectsByTriggerTheShareThatChangedNothingAndTheRepairs() throws Exception {
    List<JsonObject> panels = Dashboards.panels(Dashboards.read(Dashboards.FOLDER.resolve("resync-cost-overview.json")));
    String selector = "job=~\"$job\", namespace=~\"$namespace\", pod=~\"$pod\"";
    assertThat(Dashboards.expressions(panel(panels, "Reconciles by trigger and effect")))
        .containsExactly("sum by (trigger, effect) (rate(controller_reconcile_effect_total{" + selector + "}[$__rate_interval]))");
    List<String> shares = Dashboards.expressions(panel(panels, "No-op and periodic reconciles that changed nothing"));
    assertThat(shares).hasSize(2);
    for (int i = 0; i < 2; i++) {
      String reconciles = "rate(controller_reconcile_effect_total{" + selector + ", trigger" + (i == 0 ? "=~\".*_noop\"" : "=\"periodic\"");
      // none and unchanged over all, 0 for a controller whose reconciles all changed something
      assertThat(shares.get(i))
          .isEqualTo(
              "(sum by (controller) (" + reconciles + ", effect!=\"changed\"}[$__rate_interval])) or 0 * sum by (controller) (" + reconciles
                  + "}[$__rate_interval]))) / sum by (controller) (" + reconciles + "}[$__rate_interval]))");
    }
    assertThat(Dashboards.expressions(panel(panels, "Repairs on no-op triggers and periodic")))
        .containsExactly(
            "sum by (controller) (rate(controller_reconcile_effect_total{" + selector + ", trigger=~\".*_noop\", effect=\"changed\"}[$__rate_interval]))",
            "sum by (controller) (rate(controller_reconcile_effect_total{" + selector + ", trigger=\"periodic\", effect=\"changed\"}[$__rate_interval]))");
  }

  /** Echoes: reconciles on the trigger own_write and their API requests; loop steps are those whose effect is changed. */
  @Test
  void theOverviewShowsEchoesAndLoopStepsPerController() throws Exception {
    List<JsonObject> panels = Dashboards.panels(Dashboards.read(Dashboards.FOLDER.resolve("resync-cost-overview.json")));
    String selector = "job=~\"$job\", namespace=~\"$namespace\", pod=~\"$pod\"";
    assertThat(Dashboards.expressions(panel(panels, "Echoes of own writes")))
        .containsExactly(
            "sum by (controller) (rate(controller_reconcile_total{" + selector + ", trigger=\"own_write\"}[$__rate_interval]))",
            "sum by (controller) (rate(controller_reconcile_api_requests_total{" + selector + ", trigger=\"own_write\"}[$__rate_interval]))");
    assertThat(Dashboards.expressions(panel(panels, "Own-write loop steps")))
        .as("a controller whose echoes settle draws a line at 0")
        .containsExactly(
            "sum by (controller) (rate(controller_reconcile_effect_total{" + selector + ", trigger=\"own_write\", effect=\"changed\"}[$__rate_interval]))"
                + " or sum by (controller) (rate(controller_reconcile_effect_total{" + selector + ", trigger=\"own_write\"}[$__rate_interval])) * 0");
  }

  @Test
  void theControllerDetailShowsItsEchoesByEffectAndTheirTime() throws Exception {
    List<JsonObject> panels = Dashboards.panels(Dashboards.read(Dashboards.FOLDER.resolve("controller-detail.json")));
    String selector = "job=~\"$job\", namespace=~\"$namespace\", pod=~\"$pod\", controller=~\"$controller\"";
    assertThat(Dashboards.expressions(panel(panels, "Echoes of own writes by effect")))
        .containsExactly("sum by (effect) (rate(controller_reconcile_effect_total{" + selector + ", trigger=\"own_write\"}[$__rate_interval]))");
    assertThat(Dashboards.expressions(panel(panels, "Echo reconcile time")))
        .containsExactly(
            "sum(rate(controller_reconcile_duration_seconds_sum{" + selector + ", trigger=\"own_write\"}[$__rate_interval]))",
            "sum(rate(controller_reconcile_duration_seconds_sum{" + selector + "}[$__rate_interval]))");
  }

  /** own_write is not a no-op trigger: no query on the no-op triggers may take it in. */
  @ParameterizedTest
  @MethodSource("dashboards")
  void noQueryOnNoOpTriggersTakesInOwnWrite(Path file) throws Exception {
    for (JsonObject panel : Dashboards.panels(Dashboards.read(file))) {
      for (String expr : Dashboards.expressions(panel)) {
        if (expr.contains("trigger") && expr.contains("_noop")) {
          assertThat(expr).as(title(panel)).doesNotContain("own_write").contains("trigger=~\".*_noop\"");
        }
      }
    }
  }

  /** A table of several queries is one table: their frames merged, each query's column named. */
  @ParameterizedTest
  @MethodSource("dashboards")
  void aTableOfSeveralQueriesJoinsThemIntoOneFrame(Path file) throws Exception {
    for (JsonObject panel : Dashboards.panels(Dashboards.read(file))) {
      if (panel.get("type").getAsString().equals("table") && panel.getAsJsonArray("targets").size() > 1) {
        assertJoinedIntoOneFrame(panel);
      }
    }
  }

  /**
   * The handlers table: one row per handler (its five instant queries merged on kind and handler), the
   * verdict first, and the counts whole numbers: increase() extrapolates to the range's edges (128.16
   * where the report says 128), so they are rounded, and the description says they are estimates.
   */
  @Test
  void theHandlersTableIsOneRowPerHandlerWithRoundedCounts() throws Exception {
    List<JsonObject> panels = Dashboards.panels(Dashboards.read(Dashboards.FOLDER.resolve("resync-cost-overview.json")));
    JsonObject handlers = panel(panels, "Handlers: do they filter no-ops?");
    assertJoinedIntoOneFrame(handlers);
    assertCountsRounded(handlers);
    assertThat(groupings(Dashboards.expressions(handlers).get(0))).containsExactly(Set.of("kind", "handler"));
    JsonObject organize = handlers.getAsJsonArray("transformations").get(1).getAsJsonObject().getAsJsonObject("options");
    assertThat(organize.getAsJsonObject("renameByName").keySet()).contains("kind", "handler");
    assertThat(organize.getAsJsonObject("indexByName").get("kind").getAsInt()).isZero();
    assertThat(organize.getAsJsonObject("indexByName").get("handler").getAsInt()).isOne();
    assertThat(handlers.get("description").getAsString()).contains("estimates, rounded to whole updates: increase() extrapolates");
  }

  /**
   * Grafana shows each query of a table as a frame of its own unless they are joined: the panel merges
   * them (instant queries in table format, all grouped by the same labels, so that a row is one value
   * of those labels), then drops the time and names each query's column; an override matches a column
   * by that name (a frame's refId matches nothing after a merge).
   */
  static void assertJoinedIntoOneFrame(JsonObject panel) {
    String title = title(panel);
    List<String> exprs = Dashboards.expressions(panel);
    Set<Set<String>> labels = new HashSet<>();
    for (String expr : exprs) {
      assertThat(groupings(expr)).as(title + ": grouped by labels: " + expr).isNotEmpty();
      labels.addAll(groupings(expr));
    }
    assertThat(labels).as(title + ": every query grouped by the same labels, the rows' key").hasSize(1);
    JsonArray transformations = panel.getAsJsonArray("transformations");
    assertThat(transformations).as(title + ": transformations that join its queries' frames").isNotNull();
    assertThat(transformations.get(0).getAsJsonObject().get("id").getAsString()).as(title + ": first, merge the frames").isEqualTo("merge");
    JsonObject organize = null;
    for (JsonElement t : transformations) {
      if (t.getAsJsonObject().get("id").getAsString().equals("organize")) {
        organize = t.getAsJsonObject().getAsJsonObject("options");
      }
    }
    assertThat(organize).as(title + ": then organize: drop the time, name the columns").isNotNull();
    assertThat(organize.getAsJsonObject("excludeByName").get("Time").getAsBoolean()).as(title + ": the time column dropped").isTrue();
    Set<String> columns = new HashSet<>();
    for (JsonElement target : panel.getAsJsonArray("targets")) {
      JsonObject t = target.getAsJsonObject();
      assertThat(t.get("instant").getAsBoolean()).as(title + ": instant queries, one row each").isTrue();
      assertThat(t.get("format").getAsString()).as(title).isEqualTo("table");
      String value = "Value #" + t.get("refId").getAsString();
      assertThat(organize.getAsJsonObject("renameByName").has(value)).as(title + ": a name for " + value).isTrue();
      columns.add(organize.getAsJsonObject("renameByName").get(value).getAsString());
    }
    organize.getAsJsonObject("renameByName").entrySet().forEach(e -> columns.add(e.getValue().getAsString()));
    for (JsonElement override : panel.getAsJsonObject("fieldConfig").getAsJsonArray("overrides")) {
      JsonObject matcher = override.getAsJsonObject().getAsJsonObject("matcher");
      assertThat(matcher.get("id").getAsString()).as(title + ": an override matches a column by its name").isEqualTo("byName");
      assertThat(matcher.get("options").getAsString()).as(title + ": an override of a column the table has").isIn(columns);
    }
  }

  /** Each count query (an increase(), not the verdict mapped to words) rounds its estimate to a whole number. */
  static void assertCountsRounded(JsonObject panel) {
    Set<String> mapped = new HashSet<>();
    JsonObject rename = panel.getAsJsonArray("transformations").get(1).getAsJsonObject().getAsJsonObject("options").getAsJsonObject("renameByName");
    for (JsonElement override : panel.getAsJsonObject("fieldConfig").getAsJsonArray("overrides")) {
      for (JsonElement property : override.getAsJsonObject().getAsJsonArray("properties")) {
        if (property.getAsJsonObject().get("id").getAsString().equals("mappings")) {
          mapped.add(override.getAsJsonObject().getAsJsonObject("matcher").get("options").getAsString());
        }
      }
    }
    assertThat(mapped).as(title(panel) + ": the verdict column is mapped to words").hasSize(1);
    int counts = 0;
    for (JsonElement target : panel.getAsJsonArray("targets")) {
      JsonObject t = target.getAsJsonObject();
      String expr = t.get("expr").getAsString();
      String column = rename.get("Value #" + t.get("refId").getAsString()).getAsString();
      if (expr.contains("increase(") && !mapped.contains(column)) {
        assertThat(expr).as(title(panel) + ": " + column + " rounded").startsWith("round(").endsWith(")");
        counts++;
      }
    }
    assertThat(counts).as(title(panel) + ": its count columns").isPositive();
  }

  /** The label sets of an expression's {@code by (...)} and {@code on (...)} clauses. */
  static Set<Set<String>> groupings(String expr) {
    Set<Set<String>> groupings = new HashSet<>();
    Matcher m = GROUPING.matcher(expr);
    while (m.find()) {
      Set<String> labels = new HashSet<>();
      for (String label : m.group(2).split(",")) {
        labels.add(label.strip());
      }
      groupings.add(labels);
    }
    return groupings;
  }

  private static JsonObject panel(List<JsonObject> panels, String title) {
    return panels.stream().filter(p -> title(p).equals(title)).findFirst().orElseThrow(() -> new AssertionError("no panel " + title));
  }

  @Test
  void theLintCatchesWhatItIsFor() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> assertCountersAndGauges("t", "sum(informer_updates_total{job=~\"$job\"})"))
        .isInstanceOf(AssertionError.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> assertCountersAndGauges("t", "rate(workqueue_depth{job=~\"$job\"}[1m])"))
        .isInstanceOf(AssertionError.class);
    assertCountersAndGauges("t", "sum by (le) (rate(controller_reconcile_duration_seconds_bucket{a=\"b\"}[1m]))");
    assertCountersAndGauges("t", "max(workqueue_depth{a=\"b\"})");
  }

  /** The handlers table as it was: five frames side by side, counts with fractions; and with one of them. */
  @Test
  void theTableLintCatchesUnjoinedFramesAndUnroundedCounts() throws Exception {
    List<JsonObject> panels = Dashboards.panels(Dashboards.read(Dashboards.FOLDER.resolve("resync-cost-overview.json")));
    JsonObject unjoined = panel(panels, "Handlers: do they filter no-ops?").deepCopy();
    unjoined.remove("transformations");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> assertJoinedIntoOneFrame(unjoined)).isInstanceOf(AssertionError.class);
    JsonObject byRefId = panel(panels, "Handlers: do they filter no-ops?").deepCopy();
    byRefId.getAsJsonObject("fieldConfig").getAsJsonArray("overrides").get(0).getAsJsonObject().getAsJsonObject("matcher").addProperty("id", "byFrameRefID");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> assertJoinedIntoOneFrame(byRefId)).isInstanceOf(AssertionError.class);
    JsonObject unrounded = panel(panels, "Handlers: do they filter no-ops?").deepCopy();
    JsonObject first = unrounded.getAsJsonArray("targets").get(0).getAsJsonObject();
    first.addProperty("expr", first.get("expr").getAsString().replaceFirst("^round\\((.*)\\)$", "$1"));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> assertCountsRounded(unrounded)).isInstanceOf(AssertionError.class);
  }

  /** Walks the expression keeping the enclosing function of each metric selector. */
  static void assertCountersAndGauges(String where, String expr) {
    Deque<String> functions = new ArrayDeque<>();
    int i = 0;
    while (i < expr.length()) {
      char c = expr.charAt(i);
      if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < expr.length() && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '_' || expr.charAt(i) == ':')) {
          i++;
        }
        String word = expr.substring(start, i);
        int next = i;
        while (next < expr.length() && expr.charAt(next) == ' ') {
          next++;
        }
        if (next < expr.length() && expr.charAt(next) == '(') {
          functions.push(word);
          i = next + 1;
        } else if (next < expr.length() && expr.charAt(next) == '{') {
          String enclosing = functions.isEmpty() ? "" : functions.peek();
          boolean counter = word.endsWith("_total") || word.endsWith("_bucket") || word.endsWith("_sum") || word.endsWith("_count");
          if (counter) {
            assertThat(enclosing).as(where + ": counter " + word + " outside rate/increase in " + expr).isIn(RATE_FUNCTIONS);
          }
          if (GAUGES.contains(word)) {
            assertThat(enclosing).as(where + ": gauge " + word + " inside " + enclosing + " in " + expr).isNotIn(RATE_FUNCTIONS);
          }
          i = expr.indexOf('}', next) + 1;
        }
      } else if (c == '(') {
        functions.push("(");
        i++;
      } else if (c == ')') {
        functions.pop();
        i++;
      } else if (c == '"') {
        i = expr.indexOf('"', i + 1) + 1;
      } else {
        i++;
      }
    }
  }

  private static List<JsonObject> variables(JsonObject dashboard) {
    List<JsonObject> variables = new ArrayList<>();
    dashboard.getAsJsonObject("templating").getAsJsonArray("list").forEach(v -> variables.add(v.getAsJsonObject()));
    return variables;
  }

  private static String title(JsonObject panel) {
    return panel.get("title").getAsString();
  }
}
