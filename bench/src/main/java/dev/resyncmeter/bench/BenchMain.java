package dev.resyncmeter.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * {@code java -jar resync-meter-bench.jar [--smoke|--quick] [--agent JAR] [--only
 * micro|e2e|queue|depth|startup|soak|heap] [--jfr] [--label NAME] [--results DIR] [--peer-agents DIR]}: runs
 * the sections the command line asks for, writes {@code <results>/<yyyy-mm-dd-HHMM>[-label].json/.md}
 * and {@code latest.json/.md}, and exits 1 when a check failed (a program did not complete, exported
 * counts differed), 2 on a command line it cannot run. Targets missed never fail it.
 */
public final class BenchMain {

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    Path target = Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParent();
    BenchOptions options;
    try {
      options = BenchOptions.parse(args, target);
    } catch (BenchOptions.Invalid invalid) {
      System.err.println(invalid.getMessage() + "\n" + BenchOptions.USAGE);
      System.exit(2);
      return;
    }
    LocalDateTime now = LocalDateTime.now();
    String name = now.format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm")) + (options.label() == null ? "" : "-" + options.label());
    PeerAgents peers = new PeerAgents(options.agent(), options.peerDir(), Files.createTempDirectory("resync-meter-bench"));
    Results results = new Results(RunMeta.of(now, options, peers.agentJar(), args));

    for (String section : options.sections()) {
      long start = System.nanoTime();
      System.out.println(ConsoleLines.sectionStarts(section));
      try {
        run(section, options, name, peers, results);
      } catch (Exception e) {
        // One section failing is reported with its cause; the others still run.
        String cause = e.toString();
        results.check(section + " completed", false, cause.length() > 1_500 ? cause.substring(0, 1_500) + " ... (the whole transcript is on stderr)" : cause);
        e.printStackTrace();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      results.duration(section, Math.round(seconds * 10) / 10.0);
      System.out.println(ConsoleLines.sectionDone(section, seconds));
    }
    Path json = ResultFiles.write(results, options.resultsDir(), name);
    System.out.println(ConsoleLines.resultsWritten(json, options.resultsDir().resolve(name + ".md"), results.passed()));
    System.exit(results.passed() ? 0 : 1);
  }

  private static void run(String section, BenchOptions options, String name, PeerAgents peers, Results results) throws Exception {
    Mode mode = options.mode();
    PipelineSection pipeline = new PipelineSection(mode, peers, results, options.jfr() ? options.resultsDir() : null, name);
    switch (section) {
      case "micro" -> new MicroSection(MicroSection.sizes(mode), peers, results).run();
      case "e2e" -> pipeline.run(false);
      case "heap" -> pipeline.run(true);
      case "queue" -> new QueueWaveRuns(QueueWaveRuns.settings(mode), results).section(peers.resyncMeterOption());
      case "startup" -> new StartupSection(StartupSection.sizes(mode), peers, results).run();
      case "depth" -> new DepthSection(mode, peers, results).run();
      case "soak" -> new SoakSection(SoakSection.repetitions(mode), peers, results).run();
      default -> throw new IllegalStateException(section);
    }
  }
}
