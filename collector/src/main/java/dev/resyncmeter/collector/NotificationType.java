package dev.resyncmeter.collector;

/** The handler method an informer called. The label value is the Prometheus {@code type}. */
public enum NotificationType {
  ADD("add"),
  UPDATE("update"),
  DELETE("delete");

  private final String label;

  NotificationType(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
