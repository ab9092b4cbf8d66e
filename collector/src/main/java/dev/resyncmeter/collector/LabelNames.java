package dev.resyncmeter.collector;

/** Names of the Prometheus labels of the exported series (docs/metrics.md lists them). */
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
