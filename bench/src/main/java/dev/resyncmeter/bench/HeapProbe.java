package dev.resyncmeter.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * The live heap of this JVM as {@code jcmd <pid> GC.class_histogram} reports it (the command runs a
 * full collection first), read in-process through the DiagnosticCommand MBean.
 */
public final class HeapProbe {

  /** One histogram row. */
  public record ClassRow(String name, long instances, long bytes) {}

  /** The histogram's "Total" line and its rows, largest first. */
  public record Histogram(long totalBytes, long totalInstances, List<ClassRow> rows) {
    /**
     * resync-meter's own classes (and arrays of them) under {@code dev.resyncmeter.}, its shaded
     * libraries included, except this benchmark's classes.
     */
    public List<ClassRow> ownRows() {
      return rows.stream().filter(r -> r.name.contains("dev.resyncmeter.") && !r.name.contains("dev.resyncmeter.bench.")).toList();
    }
  }

  private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
  private static final Pattern TOTAL = Pattern.compile("^Total\\s+(\\d+)\\s+(\\d+)");

  private HeapProbe() {}

  /** Rows at least this large are reported: enough to see where an agent's bytes are. */
  static final long REPORTED_ROW_BYTES = 8 * 1024;

  /**
   * The lower of two histograms 500 ms apart: the pause lets the agent's weak-key cleaner drop the
   * entries of objects the first collection freed, as it would in a long-running controller.
   */
  public static Histogram liveHeap() throws Exception {
    Histogram first = histogram();
    Thread.sleep(500);
    Histogram second = histogram();
    return second.totalBytes <= first.totalBytes ? second : first;
  }

  static Histogram histogram() throws Exception {
    String text =
        (String)
            ManagementFactory.getPlatformMBeanServer()
                .invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "gcClassHistogram",
                    new Object[] {new String[0]},
                    new String[] {String[].class.getName()});
    return parse(text);
  }

  static Histogram parse(String text) {
    long totalBytes = -1;
    long totalInstances = -1;
    List<ClassRow> rows = new ArrayList<>();
    for (String line : text.split("\n")) {
      Matcher total = TOTAL.matcher(line);
      if (total.find()) {
        totalInstances = Long.parseLong(total.group(1));
        totalBytes = Long.parseLong(total.group(2));
        continue;
      }
      Matcher row = ROW.matcher(line);
      if (row.find()) {
        rows.add(new ClassRow(row.group(3), Long.parseLong(row.group(1)), Long.parseLong(row.group(2))));
      }
    }
    if (totalBytes < 0) {
      throw new IllegalStateException("no Total line in the class histogram:\n" + text);
    }
    rows.sort(Comparator.comparingLong(ClassRow::bytes).reversed());
    return new Histogram(totalBytes, totalInstances, List.copyOf(rows));
  }
}
