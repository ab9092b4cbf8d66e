package dev.resyncmeter.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scrape of an agent's endpoint in the Prometheus text format (0.0.4, or OpenMetrics), parsed
 * strictly: a line that is not a comment or a sample, or a text cut off in the middle of a line, is
 * refused with the line that is wrong; so is an effect the report cannot count (an effect series
 * left out would make a reconcile that changed something look like one that did not).
 */
public record Scrape(List<Sample> samples) {

  /** The values of controller_reconcile_effect_total's {@code effect} label. */
  static final List<String> EFFECTS = List.of("none", "unchanged", "changed");

  /** One sample line: the metric name, its labels in their order, the value. */
  public record Sample(String name, Map<String, String> labels, double value) {
    String key() {
      return name + labels;
    }
  }

  public static Scrape parse(String text, String source) throws ReportException {
    if (text.isBlank()) {
      throw new ReportException(source + " is empty");
    }
    if (!text.endsWith("\n")) {
      throw new ReportException(source + " is truncated: its last line has no end (" + clip(text.substring(text.lastIndexOf('\n') + 1)) + ")");
    }
    List<Sample> samples = new ArrayList<>();
    String[] lines = text.split("\n");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      Sample sample = sample(line);
      if (sample == null) {
        throw new ReportException(source + " is not Prometheus text: line " + (i + 1) + " is no sample (" + clip(line) + ")");
      }
      String effect = sample.labels().get("effect");
      if (sample.name().equals("controller_reconcile_effect_total") && (effect == null || !EFFECTS.contains(effect))) {
        throw new ReportException(
            source + " line " + (i + 1) + ": controller_reconcile_effect_total "
                + (effect == null ? "has no effect label" : "has effect '" + effect + "', not none, unchanged or changed"));
      }
      samples.add(sample);
    }
    boolean agent = samples.stream().anyMatch(s -> s.name().equals("resync_meter_info"));
    if (!agent) {
      throw new ReportException(source + " holds no resync_meter_info: it is not a resync-meter endpoint");
    }
    return new Scrape(Collections.unmodifiableList(samples));
  }

  /**
   * {@code name{a="x",b="y"} value [timestamp]}, or null when the line is not that. Public for the
   * tests' and the benchmark's scrapes (resync-meter-testkit), which read lines with it too.
   */
  public static Sample sample(String line) {
    int i = 0;
    while (i < line.length() && isNameChar(line.charAt(i), i == 0)) {
      i++;
    }
    if (i == 0) {
      return null;
    }
    String name = line.substring(0, i);
    Map<String, String> labels = new LinkedHashMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (true) {
        if (i < line.length() && line.charAt(i) == '}') {
          i++;
          break;
        }
        int start = i;
        while (i < line.length() && isNameChar(line.charAt(i), i == start)) {
          i++;
        }
        if (i == start || i + 1 >= line.length() || line.charAt(i) != '=' || line.charAt(i + 1) != '"') {
          return null;
        }
        String label = line.substring(start, i);
        i += 2;
        StringBuilder value = new StringBuilder();
        while (i < line.length() && line.charAt(i) != '"') {
          char c = line.charAt(i++);
          if (c == '\\' && i < line.length()) {
            char escaped = line.charAt(i++);
            value.append(escaped == 'n' ? '\n' : escaped);
          } else {
            value.append(c);
          }
        }
        if (i >= line.length()) {
          return null;
        }
        i++; // the closing quote
        labels.put(label, value.toString());
        if (i < line.length() && line.charAt(i) == ',') {
          i++;
        }
      }
    }
    String[] rest = line.substring(i).trim().split("\\s+");
    if (rest.length < 1 || rest.length > 2 || rest[0].isEmpty() || (i < line.length() && line.charAt(i) != ' ')) {
      return null;
    }
    try {
      return new Sample(name, Collections.unmodifiableMap(labels), value(rest[0]));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static double value(String text) {
    return switch (text) {
      case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(text);
    };
  }

  private static boolean isNameChar(char c, boolean first) {
    return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
  }

  private static String clip(String line) {
    return line.length() > 60 ? line.substring(0, 60) + "..." : line;
  }
}
