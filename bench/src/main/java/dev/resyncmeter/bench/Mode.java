package dev.resyncmeter.bench;

import java.util.List;
import java.util.Locale;

/**
 * How much a run measures. Each section says its own sizes in each mode ({@code sizes(Mode)}): the full
 * run gives the figures the docs quote (about 46 minutes of the 2-core machine); the quick run prints
 * every table the full run prints, every configuration and both JDKs included, from fewer iterations,
 * objects and rounds (under a quarter of an hour); the smoke run checks that everything runs and times nothing
 * (about two minutes: the e2e program without the peers, no soak).
 */
enum Mode {
  SMOKE,
  QUICK,
  FULL;

  /** The sections a run goes through: {@code only}, else all but the heap alone (e2e measures it), and no soak in a smoke run. */
  List<String> sections(String only) {
    return only != null
        ? List.of(only)
        : this == SMOKE ? List.of("micro", "e2e", "queue", "depth", "startup") : List.of("micro", "e2e", "queue", "depth", "startup", "soak");
  }

  /** How the results name it: smoke, quick or full. */
  String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
