package dev.resyncmeter.collector;

/** Names of the Prometheus labels in the metric contract (DESIGN section 3). */
final class LabelNames {
  static final String KIND = "kind";
  static final String HANDLER = "handler";
  static final String TYPE = "type";
  static final String CAUSE = "cause";
  static final String RESOURCE_VERSION = "resource_version";
  static final String OUTCOME = "outcome";
  static final String REASON = "reason";
  static final String COMPONENT = "component";

  static final String CHANGED = "changed";
  static final String UNCHANGED = "unchanged";

  private LabelNames() {}
}
