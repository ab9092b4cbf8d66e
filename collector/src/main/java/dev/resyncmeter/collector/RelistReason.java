package dev.resyncmeter.collector;

/** Why a reflector listed again. The label value is the Prometheus {@code reason}. */
public enum RelistReason implements LabelValue {
  /** The server answered 410 Gone: the watch's resource version was too old. */
  EXPIRED,
  /** Any other watch or list failure. */
  ERROR
}
