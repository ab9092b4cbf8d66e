package dev.resyncmeter.bench;

import java.nio.file.Path;

/** Every line a run prints on the console as it goes: where it is, and each measurement as it comes. */
final class ConsoleLines {

  private ConsoleLines() {}

  static String sectionStarts(String section) {
    return "[bench] " + section + " ...";
  }

  static String sectionDone(String section, double seconds) {
    return String.format("[bench] %s done in %.0f s", section, seconds);
  }

  static String resultsWritten(Path json, Path md, boolean passed) {
    return "[bench] results: " + json + " and " + md + (passed ? "" : " (CHECKS FAILED)");
  }

  static String microRun(String method, String config, double medianNanos) {
    return String.format("[bench]   %s %s: %.1f ns/op", method, config, medianNanos);
  }

  static String e2eRun(String runName, double medianWaveMillis, double liveHeapMib) {
    return String.format("[bench]   %s: wave %.0f ms, heap %.1f MiB", runName, medianWaveMillis, liveHeapMib);
  }

  /** One run of a program that measures no heap (the fabric8 wave). */
  static String e2eRun(String runName, double medianWaveMillis) {
    return String.format("[bench]   %s: wave %.0f ms", runName, medianWaveMillis);
  }

  static String queueWave(String variant, double medianMillis, double cpuMillis) {
    return String.format("[bench]   queue wave, %s: median %.0f ms, CPU %.0f ms", variant, medianMillis, cpuMillis);
  }

  /** A configuration's e2e wave time over no agent's, pooled ({@link PooledRatio}). */
  static String waveRatio(String wave, String config, PooledRatio ratio) {
    return "[bench]   " + wave + " wave ratio to no agent, " + config + ": " + (ratio == null ? "n/a" : ratio.text());
  }

  static String noJdk(int feature, String what) {
    return String.format("[bench]   no JDK %d (set JAVA%d_HOME): no %s on Java %d", feature, feature, what, feature);
  }

  static String startupProbe(String probe, String config, double medianMillis) {
    return String.format("[bench]   start-up %s, %s: median %.0f ms", probe, config, medianMillis);
  }

  static String soak(int java, String order, int starts, int hung, int warned) {
    return String.format("[bench]   soak Java %d, resync-meter %s: %d starts, %d hung, %d warned", java, order, starts, hung, warned);
  }
}
