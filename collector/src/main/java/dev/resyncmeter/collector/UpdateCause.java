package dev.resyncmeter.collector;

/** Why an informer called a handler's {@code onUpdate}. The label value is the Prometheus {@code cause}. */
public enum UpdateCause implements LabelValue {
  /** A watch event (MODIFIED) was delivered. */
  WATCH,
  /** The periodic resync replayed the cached object: old and new are the same instance. */
  RESYNC,
  /** The reflector listed again after a broken watch and replaced the cached object with a fresh copy. */
  RELIST
}
