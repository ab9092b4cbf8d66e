package dev.resyncmeter.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** A map written out in the order its entries were given: a JSON object's fields, a settings line. */
final class OrderedMap {

  private OrderedMap() {}

  /** name, value, name, value, ... */
  static Map<String, Object> of(Object... namesAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      map.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return map;
  }
}
