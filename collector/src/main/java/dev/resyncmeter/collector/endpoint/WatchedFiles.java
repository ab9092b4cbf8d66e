package dev.resyncmeter.collector.endpoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Files read again when they change: what a mounted secret becomes when it is rotated (Kubernetes
 * swaps its files at once behind a link, so their times say little; their bytes are compared). Read
 * at most once a second, by the endpoint's own threads.
 */
final class WatchedFiles {

  private static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final String[] names;
  private final Path[] paths;
  private byte[][] inUse;
  private byte[][] lastRefused;
  private long nextCheck;

  /** {@code names[i]} says in a message which setting {@code paths[i]} came from. */
  WatchedFiles(String[] names, Path[] paths) {
    this.names = names;
    this.paths = paths;
  }

  /** Every file's bytes now; a file that cannot be read is a {@link SetupException} naming it. */
  byte[][] read() throws SetupException {
    byte[][] contents = new byte[paths.length][];
    for (int i = 0; i < paths.length; i++) {
      contents[i] = read(i);
    }
    return contents;
  }

  private byte[] read(int i) throws SetupException {
    try {
      return Files.readAllBytes(paths[i]);
    } catch (NoSuchFileException e) {
      throw new SetupException(what(i) + " does not exist");
    } catch (IOException | RuntimeException e) {
      throw new SetupException(what(i) + " cannot be read: " + e);
    }
  }

  /** How a message names file {@code i}: {@code tls-key /etc/tls/tls.key}. */
  String what(int i) {
    return names[i] + " " + paths[i];
  }

  /** The files' bytes were taken into use (at the start, or after a change). */
  synchronized void inUse(byte[][] contents) {
    inUse = contents;
    nextCheck = System.nanoTime() + CHECK_NANOS;
  }

  /**
   * The files' bytes when they differ from those in use and from the last ones refused, and at least a
   * second passed since the last look; otherwise null. A change that cannot be read now is looked at
   * again a second later.
   */
  synchronized byte[][] changed() {
    long now = System.nanoTime();
    if (now - nextCheck < 0) {
      return null;
    }
    nextCheck = now + CHECK_NANOS;
    byte[][] current;
    try {
      current = read();
    } catch (SetupException e) {
      return null; // half rotated, or gone for a moment: what is in use stays
    }
    return Arrays.deepEquals(current, inUse) || Arrays.deepEquals(current, lastRefused) ? null : current;
  }

  /** These bytes could not be used: the change is not tried again until the files change once more. */
  synchronized void refused(byte[][] contents) {
    lastRefused = contents;
  }
}
