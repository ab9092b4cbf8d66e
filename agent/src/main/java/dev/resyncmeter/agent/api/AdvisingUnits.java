package dev.resyncmeter.agent.api;

import dev.resyncmeter.agent.runtime.UnitSwitch;
import java.util.ArrayList;
import java.util.List;

/**
 * The units whose advice this thread is weaving into the class it transforms now. ByteBuddy weaves
 * after the transformers return, and a failure comes to the weaving's listener on this thread: the
 * failure is then theirs. Free of ByteBuddy: the weaving asks it for classes woven ahead of time too,
 * where no ByteBuddy class may load.
 */
public final class AdvisingUnits {

  private static final ThreadLocal<List<UnitSwitch>> ADVISING = new ThreadLocal<>();

  private AdvisingUnits() {}

  static void add(UnitSwitch unit) {
    List<UnitSwitch> units = ADVISING.get();
    if (units == null) {
      units = new ArrayList<>(1);
      ADVISING.set(units);
    }
    units.add(unit);
  }

  /** The units that gave advice to the class this thread transforms now; forgets them (once per class). */
  public static List<UnitSwitch> take() {
    List<UnitSwitch> units = ADVISING.get();
    if (units == null) {
      return List.of();
    }
    ADVISING.remove();
    return units;
  }
}
