package dev.resyncmeter.agent;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A concurrent map keyed by object identity that lets its keys be collected: the agent attaches
 * state to the host's objects (queues, listeners) without keeping them alive or calling their
 * {@code equals}/{@code hashCode}.
 */
public final class IdentityWeakMap<V> {

  private final ConcurrentHashMap<Key, V> map = new ConcurrentHashMap<>();
  private final ReferenceQueue<Object> collected = new ReferenceQueue<>();

  public V get(Object key) {
    return key == null ? null : map.get(new Key(key, null));
  }

  public void put(Object key, V value) {
    purge();
    map.put(new Key(key, collected), value);
  }

  public V computeIfAbsent(Object key, Function<Object, V> create) {
    V existing = get(key);
    if (existing != null) {
      return existing;
    }
    purge();
    return map.computeIfAbsent(new Key(key, collected), k -> create.apply(key));
  }

  /** A snapshot of the values of keys still alive. */
  public java.util.List<V> values() {
    purge();
    return java.util.List.copyOf(map.values());
  }

  public int size() {
    purge();
    return map.size();
  }

  private void purge() {
    for (Object ref; (ref = collected.poll()) != null; ) {
      map.remove(ref);
    }
  }

  private static final class Key extends WeakReference<Object> {
    private final int hash;

    Key(Object referent, ReferenceQueue<Object> queue) {
      super(referent, queue);
      this.hash = System.identityHashCode(referent);
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
      if (!(other instanceof Key)) {
        return false;
      }
      Object referent = get();
      return referent != null && referent == ((Key) other).get();
    }
  }
}
