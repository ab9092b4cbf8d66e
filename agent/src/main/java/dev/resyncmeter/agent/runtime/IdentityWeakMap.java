package dev.resyncmeter.agent.runtime;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A concurrent map keyed by object identity that lets its keys be collected: the agent attaches
 * state to the host's objects (queues, listeners, notifications) without keeping them alive or calling
 * their {@code equals}/{@code hashCode}. An entry goes as soon as the GC clears its key: one daemon
 * thread for all maps removes it, so a map that is no longer written to does not keep dead entries
 * (a relist marks one notification per object; those must not stay until the next relist).
 */
public final class IdentityWeakMap<V> {

  private static final ReferenceQueue<Object> COLLECTED = new ReferenceQueue<>();
  private static final boolean CLEANER_RUNNING = startCleaner();

  private final ConcurrentHashMap<Object, V> map = new ConcurrentHashMap<>();
  /** Told the value of each entry whose key was collected, once it is removed. */
  private final Consumer<V> onCollected;

  public IdentityWeakMap() {
    this(value -> {});
  }

  public IdentityWeakMap(Consumer<V> onCollected) {
    this.onCollected = onCollected;
  }

  /** Starts the cleaner thread now (the agent calls it on start, from its own thread) if not yet. */
  public static boolean startCleaning() {
    return CLEANER_RUNNING;
  }

  public V get(Object key) {
    return key == null ? null : map.get(new Lookup(key));
  }

  public void put(Object key, V value) {
    purgeUnlessCleaned();
    map.put(new Key(key, this), value);
  }

  /** Removes the entry of {@code key} and returns its value, or null when it had none. */
  public V remove(Object key) {
    return key == null ? null : map.remove(new Lookup(key));
  }

  public V computeIfAbsent(Object key, Function<Object, V> create) {
    V existing = get(key);
    if (existing != null) {
      return existing;
    }
    purgeUnlessCleaned();
    return map.computeIfAbsent(new Key(key, this), k -> create.apply(key));
  }

  /** A snapshot of the values of keys still alive. */
  public java.util.List<V> values() {
    purgeUnlessCleaned();
    return java.util.List.copyOf(map.values());
  }

  /** No entry at all: a hot path can skip its lookup. */
  public boolean isEmpty() {
    return map.isEmpty();
  }

  /** Entries held, those of keys collected but not yet removed included (for tests). */
  public int size() {
    purgeUnlessCleaned();
    return map.size();
  }

  private void removeCollected(Key key) {
    V value = map.remove(key);
    if (value != null) {
      onCollected.accept(value);
    }
  }

  /** Without the cleaner thread (it could not start), writers remove dead entries themselves. */
  private static void purgeUnlessCleaned() {
    if (!CLEANER_RUNNING) {
      for (Object ref; (ref = COLLECTED.poll()) != null; ) {
        ((Key) ref).removeFromOwner();
      }
    }
  }

  private static boolean startCleaner() {
    try {
      // No inherited thread locals: whichever host thread first loads this class, we pin nothing of its.
      Thread cleaner = new Thread(null, IdentityWeakMap::clean, "resync-meter-weak-keys", 0, false);
      cleaner.setDaemon(true);
      // Not the host's loader of whichever thread happened to load this class: nothing to pin.
      cleaner.setContextClassLoader(null);
      cleaner.start();
      return true;
    } catch (Throwable t) {
      return false;
    }
  }

  private static void clean() {
    while (true) {
      try {
        ((Key) COLLECTED.remove()).removeFromOwner();
      } catch (InterruptedException e) {
        // Only the host could interrupt us (interrupting every thread); the agent goes on cleaning.
      } catch (Throwable t) {
        AgentFaults.record("weak-keys", t);
      }
    }
  }

  /** A key held in the map: weak, registered for removal, compared by the identity of its referent. */
  private static final class Key extends WeakReference<Object> {
    private final int hash;
    private final IdentityWeakMap<?> owner;

    Key(Object referent, IdentityWeakMap<?> owner) {
      super(referent, COLLECTED);
      this.hash = System.identityHashCode(referent);
      this.owner = owner;
    }

    void removeFromOwner() {
      owner.removeCollected(this);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      Object referent = get();
      if (referent == null) {
        return false;
      }
      if (other instanceof Key) {
        return referent == ((Key) other).get();
      }
      return other instanceof Lookup && referent == ((Lookup) other).referent;
    }
  }

  /** A key to look up with: a plain object, so a lookup on a hot path allocates no reference. */
  private static final class Lookup {
    private final Object referent;

    Lookup(Object referent) {
      this.referent = referent;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(referent);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Key && ((Key) other).get() == referent;
    }
  }
}
