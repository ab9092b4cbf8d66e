package dev.resyncmeter.collector;

/** The handler method an informer called. The label value is the Prometheus {@code type}. */
public enum NotificationType implements LabelValue {
  ADD,
  UPDATE,
  DELETE
}
