package dev.resyncmeter.report;

import java.util.ArrayList;
import java.util.List;

/** The options of one group as the command line gave them, in order: each takes a value. */
final class GivenOptions {

  private final List<String> given = new ArrayList<>();

  /** The value of the option at {@code args[i]}, which counts as given from now on. */
  String value(String[] args, int i) throws UsageException {
    if (i + 1 >= args.length) {
      throw new UsageException(args[i] + " needs a value");
    }
    given.add(args[i]);
    return args[i + 1];
  }

  /** The first option given, or null when none was. */
  String first() {
    return given.isEmpty() ? null : given.get(0);
  }
}
