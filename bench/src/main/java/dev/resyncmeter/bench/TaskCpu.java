package dev.resyncmeter.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The CPU time of all of the process's Java threads, to the nanosecond: {@link ThreadMXBean#getThreadCpuTime}
 * over every live thread id. Not {@code OperatingSystemMXBean#getProcessCpuTime}: on Linux JDK 17 reads
 * that from {@code times(2)}, in 10 ms clock ticks, coarser than a 10,000-item wave's difference
 * between two runs. What this leaves out: the JVM's own threads (GC, JIT compilers), and threads that
 * ended between two reads; the workers' spinning on a queue's monitor, and the agent's work, are on
 * Java threads.
 */
final class TaskCpu {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private TaskCpu() {}

  /** Nanoseconds of CPU of the live Java threads so far (a thread that ends between two ids is skipped). */
  static long nanos() {
    long total = 0;
    for (long id : THREADS.getAllThreadIds()) {
      long cpu = THREADS.getThreadCpuTime(id);
      if (cpu > 0) {
        total += cpu;
      }
    }
    return total;
  }
}
