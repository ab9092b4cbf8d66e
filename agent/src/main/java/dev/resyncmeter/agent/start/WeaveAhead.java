package dev.resyncmeter.agent.start;

import dev.resyncmeter.agent.weaving.AheadOfTimeWeaving;
import java.nio.file.Path;

/**
 * A step of the agent's build: weaves every part's library classes of the build's class path into
 * the folder {@code args[0]}, so that a host on those versions starts without running ByteBuddy.
 */
public final class WeaveAhead {

  private WeaveAhead() {}

  public static void main(String[] args) throws Exception {
    AheadOfTimeWeaving.weave(Parts.ALL, Path.of(args[0]));
  }
}
