package dev.resyncmeter.collector;

import java.util.Locale;

/**
 * A label value named by an enum constant: the metric contract spells it as the constant's name in
 * lower case ({@code RESYNC_NOOP} is {@code resync_noop}), so the value is written once, as the name.
 */
public interface LabelValue {

  /** The enum constant's name. */
  String name();

  /** The value this constant is exported as. */
  default String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
