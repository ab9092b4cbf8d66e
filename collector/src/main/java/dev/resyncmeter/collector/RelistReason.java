package dev.resyncmeter.collector;

/** Why a reflector listed again. The label value is the Prometheus {@code reason}. */
public enum RelistReason {
  /** The server answered 410 Gone: the watch's resource version was too old. */
  EXPIRED("expired"),
  /** Any other watch or list failure. */
  ERROR("error");

  private final String label;

  RelistReason(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
