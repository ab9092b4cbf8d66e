package dev.resyncmeter.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What ran where: the head of both result files (date, mode, sections, machine, JVM, agent jar, command). */
final class RunMeta {

  private RunMeta() {}

  static Map<String, Object> of(LocalDateTime now, BenchOptions options, Path agentJar, String[] args) throws Exception {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("date", now.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")));
    meta.put("label", options.label());
    meta.put("mode", options.mode().key());
    List<String> sections = new ArrayList<>(options.sections());
    if (options.only() == null) {
      sections.add("heap"); // measured in the e2e runs
    }
    meta.put("sections", sections);
    Map<String, Object> machine = new LinkedHashMap<>();
    machine.put("cores", Runtime.getRuntime().availableProcessors());
    long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
    machine.put("memoryGiB", Math.round(memory / (1024.0 * 1024 * 1024) * 10) / 10.0);
    machine.put("cpu", cpuModel());
    meta.put("machine", machine);
    Map<String, Object> jvm = new LinkedHashMap<>();
    jvm.put("version", System.getProperty("java.runtime.version"));
    jvm.put("vendor", System.getProperty("java.vendor"));
    jvm.put("vm", System.getProperty("java.vm.name"));
    jvm.put("home", System.getProperty("java.home"));
    meta.put("jvm", jvm);
    Map<String, Object> agent = new LinkedHashMap<>();
    agent.put("path", agentJar.toString());
    agent.put("bytes", Files.size(agentJar));
    agent.put("sha256", HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(agentJar))));
    meta.put("agentJar", agent);
    meta.put("command", "bench/run " + String.join(" ", args));
    return meta;
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException ignored) {
      // not Linux
    }
    return System.getProperty("os.arch");
  }
}
