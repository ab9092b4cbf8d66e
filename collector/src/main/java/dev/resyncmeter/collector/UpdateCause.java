package dev.resyncmeter.collector;

/** Why an informer called a handler's {@code onUpdate}. The label value is the Prometheus {@code cause}. */
public enum UpdateCause {
  /** A watch event (MODIFIED) was delivered. */
  WATCH("watch"),
  /** The periodic resync replayed the cached object: old and new are the same instance. */
  RESYNC("resync"),
  /** The reflector listed again after a broken watch and replaced the cached object with a fresh copy. */
  RELIST("relist");

  private final String label;

  UpdateCause(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
