package dev.resyncmeter.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report read from Prometheus in each format: the endpoint report's own, with what was read
 * (server, selector, range, pods) beside it, once per group with {@code --by}.
 *
 * <p>JSON without {@code --by}: the endpoint report's object, plus {@code selector}, {@code end},
 * {@code range_seconds}, {@code pods} and {@code pods_counted_from_first_sample} after
 * {@code source}; its {@code window_seconds} is the time the series cover (at most the range), which
 * the rates are per second of. With {@code --by}: those fields and {@code by} (the label names) at the top, and
 * {@code groups}, each one a complete report object as without {@code --by} whose {@code labels}
 * holds its values of the {@code --by} labels and whose {@code pods} are its own.
 */
final class FleetFormat {

  private FleetFormat() {}

  static String render(FleetReport fleet, String format) {
    return switch (format) {
      case "json" -> json(fleet);
      case "markdown" -> markdown(fleet);
      default -> table(fleet);
    };
  }

  static String json(FleetReport fleet) {
    if (fleet.by().isEmpty()) {
      FleetReport.Group only = fleet.groups().get(0);
      return JsonFormat.render(only.report(), fleet.source(), fields(fleet, null, only.pods(), only.podsCountedFromFirstSample()));
    }
    StringBuilder out = new StringBuilder("{\n");
    out.append("  \"source\": ").append(JsonFormat.string(fleet.source())).append(",\n");
    fields(fleet, null, fleet.pods(), fleet.podsCountedFromFirstSample()).forEach((name, json) -> out.append("  ").append(JsonFormat.string(name)).append(": ").append(json).append(",\n"));
    List<String> names = fleet.by().stream().map(JsonFormat::string).toList();
    out.append("  \"by\": [").append(String.join(", ", names)).append("],\n");
    out.append("  \"groups\": [");
    String separator = "\n";
    for (FleetReport.Group group : fleet.groups()) {
      String object = JsonFormat.render(group.report(), fleet.source(), fields(fleet, group.labels(), group.pods(), group.podsCountedFromFirstSample()));
      out.append(separator).append("    ").append(object.strip().replace("\n", "\n    "));
      separator = ",\n";
    }
    return out.append("\n  ]\n}\n").toString();
  }

  /** The fields after {@code source}; {@code labels} null at the top of a grouped report. */
  private static Map<String, String> fields(FleetReport fleet, Map<String, String> labels, int pods, int podsCountedFromFirstSample) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("selector", JsonFormat.string(fleet.selector()));
    fields.put("end", JsonFormat.string(fleet.end().toString()));
    fields.put("range_seconds", JsonFormat.number(fleet.rangeSeconds()));
    if (labels != null && !fleet.by().isEmpty()) {
      StringBuilder object = new StringBuilder("{");
      labels.forEach((name, value) -> object.append(object.length() == 1 ? "" : ", ").append(JsonFormat.string(name)).append(": ").append(JsonFormat.string(value)));
      fields.put("labels", object.append('}').toString());
    }
    fields.put("pods", Integer.toString(pods));
    fields.put("pods_counted_from_first_sample", Integer.toString(podsCountedFromFirstSample));
    return fields;
  }

  static String table(FleetReport fleet) {
    return eachGroup(fleet, TableFormat::render);
  }

  static String markdown(FleetReport fleet) {
    return eachGroup(fleet, MarkdownFormat::render);
  }

  /** A report in one format, titled and with notes under its heading. */
  private interface GroupFormat {
    String render(ResyncReport report, String title, List<String> notes);
  }

  /** One report a group, a blank line between them. */
  private static String eachGroup(FleetReport fleet, GroupFormat format) {
    StringBuilder out = new StringBuilder();
    for (FleetReport.Group group : fleet.groups()) {
      out.append(out.length() == 0 ? "" : "\n");
      out.append(format.render(group.report(), title(fleet, group), notes(fleet, group)));
    }
    return out.toString();
  }

  private static String title(FleetReport fleet, FleetReport.Group group) {
    return fleet.title() + (group.labels().isEmpty() ? "" : ", " + FleetReport.labelText(group.labels()));
  }

  private static List<String> notes(FleetReport fleet, FleetReport.Group group) {
    List<String> notes = new ArrayList<>();
    notes.add(FleetReport.exactness(group.pods(), group.podsCountedFromFirstSample()));
    String coverage = FleetReport.coverage(group.pods(), group.report().windowSeconds(), fleet.rangeSeconds());
    if (coverage != null) {
      notes.add(coverage);
    }
    return notes;
  }
}
