package dev.resyncmeter.examples.apiserver;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The events a watch can resume from, and which versions are too old for that (the 410 Expired a
 * real server answers after compaction): a bounded history of {@value EmbeddedApiServer#HISTORY_LIMIT}
 * events; a watch from version R is served iff R is not older than the oldest event kept (once one
 * was dropped) nor than the last {@link #expire}. An expiry also ends every open watch: each
 * remembers the {@link #epoch()} it started in.
 *
 * <p>Not thread-safe: the {@link ConfigMapStore}'s lock guards it.
 */
final class WatchHistory {

  private record Event(long revision, String namespace, String line) {}

  private final ArrayDeque<Event> events = new ArrayDeque<>();
  private long lastEventRevision = 0;
  private long oldestWatchable = 0; // a watch from R is served iff R >= oldestWatchable
  private int expiryEpoch = 0;

  /** Appends an event; a watch from before an event the bound drops would miss it: such versions are now too old. */
  void record(long revision, String namespace, String line) {
    events.addLast(new Event(revision, namespace, line));
    lastEventRevision = revision;
    if (events.size() > EmbeddedApiServer.HISTORY_LIMIT) {
      oldestWatchable = Math.max(oldestWatchable, events.removeFirst().revision());
    }
  }

  /** Compaction at {@code revision}: every version before it is too old, and the open watches end. */
  void expire(long revision) {
    oldestWatchable = revision;
    events.clear(); // nothing in it can be replayed any more
    expiryEpoch++;
  }

  /** Counts the expiries: a watch whose epoch is no longer this one was expired. */
  int epoch() {
    return expiryEpoch;
  }

  /** Whether a watch from {@code revision} can no longer be served (410). */
  boolean tooOld(long revision) {
    return revision < oldestWatchable;
  }

  /** Whether an event newer than {@code cursor} was recorded. */
  boolean hasEventsAfter(long cursor) {
    return lastEventRevision > cursor;
  }

  long lastEventRevision() {
    return lastEventRevision;
  }

  /** The lines of the events after {@code cursor}, oldest first, of one namespace (null: all). */
  List<String> linesAfter(long cursor, String namespace) {
    Iterator<Event> newestFirst = events.descendingIterator();
    List<String> lines = new ArrayList<>();
    while (newestFirst.hasNext()) {
      Event event = newestFirst.next();
      if (event.revision() <= cursor) {
        break;
      }
      if (namespace == null || namespace.equals(event.namespace())) {
        lines.add(event.line());
      }
    }
    List<String> oldestFirst = new ArrayList<>(lines.size());
    for (int i = lines.size() - 1; i >= 0; i--) {
      oldestFirst.add(lines.get(i));
    }
    return oldestFirst;
  }
}
