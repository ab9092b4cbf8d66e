package dev.resyncmeter.collector;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The writes this process sent to the Kubernetes API, as much as it takes to tell an echo: an update
 * whose new resourceVersion is the one a write from here was answered with, for that object.
 *
 * <p>Per object written (by uid) only the last version a write got back is kept: at most {@link
 * #MAX_OBJECTS} objects, each for at most {@link #MAX_AGE_NANOS}; an object evicted is no longer
 * recognised. A write's watch event may arrive before the writer has read the answer, so writes in
 * flight are known by {@code namespace/name} (the answer names the uid): an update of such an object
 * that matches nothing yet is a {@link PendingEcho}, settled when the answer comes, or by whoever
 * needs its trigger first. Nothing here ever waits for a write.
 *
 * <p>One lock guards the map and the writes in flight; a pending echo is told outside it. It is taken once per write (a request that costs milliseconds) and once
 * per update whose resourceVersion changed after some write was seen; never for a no-op update.
 */
public final class OwnWrites implements PendingEcho.Answers {

  /** The objects whose last answered version is kept. */
  public static final int MAX_OBJECTS = 4096;

  /** How long an answered version is kept: an echo comes within a watch's delay, far below this. */
  public static final long MAX_AGE_NANOS = TimeUnit.MINUTES.toNanos(10);

  /** A write unanswered this long is taken as lost (its answer went where the agent cannot see). */
  static final long IN_FLIGHT_LIMIT_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final LongSupplier clock;
  /** uid → the last answer, eldest first. */
  private final LinkedHashMap<String, Answer> answered = new LinkedHashMap<>();
  /** namespace/name → writes sent and not answered yet. */
  private final Map<String, InFlight> inFlight = new HashMap<>();
  private final List<PendingEcho> pending = new ArrayList<>();
  private volatile boolean anyWrite;

  public OwnWrites() {
    this(System::nanoTime);
  }

  OwnWrites(LongSupplier clock) {
    this.clock = clock;
  }

  /** Whether any write was seen: until then no update can be an echo, and none is looked up. */
  public boolean anyWrite() {
    return anyWrite;
  }

  /** An update, patch or apply of the object known by {@code key} ({@link WrittenObject#key}) is sent now. */
  public void writeSent(String key) {
    if (key == null) {
      return;
    }
    anyWrite = true;
    long now = clock.getAsLong();
    Told told;
    synchronized (this) {
      InFlight writes = inFlight.computeIfAbsent(key, k -> new InFlight());
      writes.count++;
      writes.lastSent = now;
      told = settlePending(now); // what waited on a write lost long ago
    }
    told.tell();
  }

  /**
   * The write sent for {@code key} (null: not told when sent, as a create) got its answer: {@code
   * object} as answered, or null when it failed or its answer could not be read.
   */
  public void writeAnswered(String key, WrittenObject object) {
    anyWrite = true;
    long now = clock.getAsLong();
    Told told;
    synchronized (this) {
      if (key != null) {
        InFlight writes = inFlight.get(key);
        if (writes != null && --writes.count <= 0) {
          inFlight.remove(key);
        }
      }
      if (object != null && object.uid() != null && object.resourceVersion() != null) {
        answered.remove(object.uid());
        answered.put(object.uid(), new Answer(object.resourceVersion(), now));
      }
      evict(now);
      told = settlePending(now);
    }
    told.tell();
  }

  /**
   * Whether {@code updated}, the new object of an update whose version changed, is an echo: null
   * when it is not, {@link PendingEcho#ECHO} when it is, else a pending echo (a write of that object
   * is in flight).
   */
  public PendingEcho check(WrittenObject updated) {
    if (updated == null || updated.uid() == null || updated.resourceVersion() == null) {
      return null;
    }
    long now = clock.getAsLong();
    Told told;
    PendingEcho verdict = null;
    synchronized (this) {
      evict(now);
      told = settlePending(now);
      String key = updated.key();
      if (answered(updated.uid(), updated.resourceVersion())) {
        verdict = PendingEcho.ECHO;
      } else if (writing(key, now)) {
        verdict = new PendingEcho(this, updated.uid(), key, updated.resourceVersion());
        pending.add(verdict);
      }
    }
    told.tell();
    return verdict;
  }

  /**
   * Tells what waits on writes lost long ago (unanswered past their limit) that they were no echoes:
   * at each scrape, so that work waiting on them counts even in a process that writes nothing more.
   */
  public void settleLost() {
    long now = clock.getAsLong();
    Told told;
    synchronized (this) {
      told = settlePending(now);
    }
    told.tell();
  }

  /** Whether {@code version} is the last one a write of the object {@code uid} was answered with. */
  @Override
  public synchronized boolean answeredWith(String uid, String version) {
    return answered(uid, version);
  }

  /** Objects whose last answered version is kept now (for memory tests). */
  synchronized int objects() {
    return answered.size();
  }

  /** Updates not settled yet (for tests). */
  synchronized int pendingUpdates() {
    return pending.size();
  }

  private boolean answered(String uid, String version) {
    Answer last = answered.get(uid);
    return last != null && last.version.equals(version);
  }

  private boolean writing(String key, long now) {
    InFlight writes = key == null ? null : inFlight.get(key);
    if (writes != null && now - writes.lastSent > IN_FLIGHT_LIMIT_NANOS) {
      inFlight.remove(key);
      return false;
    }
    return writes != null;
  }

  /** The pending echoes that can be told now, taken out; they are told once the lock is let go. */
  private Told settlePending(long now) {
    if (pending.isEmpty()) {
      return Told.NONE;
    }
    Told told = new Told();
    for (Iterator<PendingEcho> it = pending.iterator(); it.hasNext(); ) {
      PendingEcho echo = it.next();
      if (echo.settled()) {
        it.remove(); // told already, by a worker that asked for it
      } else if (answered(echo.uid, echo.version)) {
        told.add(echo, true);
        it.remove();
      } else if (!writing(echo.key, now)) {
        told.add(echo, false);
        it.remove();
      }
    }
    return told;
  }

  /** Pending echoes decided under the lock, told after it (what waits on them counts then). */
  private static final class Told {
    static final Told NONE = new Told();
    private final List<PendingEcho> echoes = new ArrayList<>(0);
    private final List<Boolean> verdicts = new ArrayList<>(0);

    void add(PendingEcho echo, boolean isEcho) {
      echoes.add(echo);
      verdicts.add(isEcho);
    }

    void tell() {
      for (int i = 0; i < echoes.size(); i++) {
        echoes.get(i).settle(verdicts.get(i));
      }
    }
  }

  private void evict(long now) {
    Iterator<Answer> eldest = answered.values().iterator();
    while (eldest.hasNext()) {
      Answer answer = eldest.next();
      if (answered.size() <= MAX_OBJECTS && now - answer.at <= MAX_AGE_NANOS) {
        return;
      }
      eldest.remove();
    }
  }

  private record Answer(String version, long at) {}

  private static final class InFlight {
    int count;
    long lastSent;
  }
}
