package dev.resyncmeter.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * The command line: {@code [--smoke|--quick] [--agent JAR] [--only micro|e2e|queue|depth|startup|soak|heap]
 * [--jfr] [--label NAME] [--results DIR] [--peer-agents DIR]}. Paths default to those beside the
 * bench jar ({@code target}).
 */
record BenchOptions(Mode mode, Path agent, String only, String label, Path resultsDir, Path peerDir, boolean jfr) {

  static final String USAGE =
      "usage: bench/run [--smoke|--quick] [--agent JAR] [--only micro|e2e|queue|depth|startup|soak|heap] [--jfr] [--label NAME] [--results DIR] [--peer-agents DIR]";

  static final List<String> PARTS = List.of("micro", "e2e", "queue", "depth", "startup", "soak", "heap");

  /** A command line that cannot run: what is wrong with it, said before the usage. */
  static final class Invalid extends Exception {
    Invalid(String problem) {
      super(problem);
    }
  }

  static BenchOptions parse(String[] args, Path target) throws Invalid {
    Mode mode = Mode.FULL;
    boolean jfr = false;
    String only = null;
    String label = null;
    Path agent = target.resolve("resync-meter-agent.jar");
    Path resultsDir = target.resolve("../results");
    Path peerDir = target.resolve("peer-agents");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--smoke" -> mode = mode(mode, Mode.SMOKE);
        case "--quick" -> mode = mode(mode, Mode.QUICK);
        case "--jfr" -> jfr = true;
        case "--agent" -> agent = Path.of(value(args, ++i));
        case "--only" -> only = value(args, ++i);
        case "--label" -> label = value(args, ++i);
        case "--results" -> resultsDir = Path.of(value(args, ++i));
        case "--peer-agents" -> peerDir = Path.of(value(args, ++i));
        default -> throw new Invalid("unknown option " + args[i]);
      }
    }
    if (only != null && !PARTS.contains(only)) {
      throw new Invalid("--only takes micro, e2e, queue, depth, startup, soak or heap, not " + only);
    }
    if (label != null && !label.matches("[A-Za-z0-9._-]+")) {
      throw new Invalid("--label takes letters, digits, '.', '_' and '-'");
    }
    return new BenchOptions(mode, agent, only, label, resultsDir.toAbsolutePath().normalize(), peerDir, jfr);
  }

  /** The sections this run goes through, in order. */
  List<String> sections() {
    return mode.sections(only);
  }

  private static Mode mode(Mode before, Mode chosen) throws Invalid {
    if (before != Mode.FULL && before != chosen) {
      throw new Invalid("--smoke and --quick are two sizes of one run: give one");
    }
    return chosen;
  }

  private static String value(String[] args, int i) throws Invalid {
    if (i >= args.length) {
      throw new Invalid(args[i - 1] + " needs a value");
    }
    return args[i];
  }
}
