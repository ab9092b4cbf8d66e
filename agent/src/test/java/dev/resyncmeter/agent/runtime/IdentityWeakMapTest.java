package dev.resyncmeter.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IdentityWeakMapTest {

  /** Equal but distinct objects, as the host's model classes are. */
  record Equal(int value) {}

  @Test
  void keysAreComparedByIdentityNotByEquals() {
    IdentityWeakMap<String> map = new IdentityWeakMap<>();
    Equal a = new Equal(1);
    Equal b = new Equal(1);
    map.put(a, "a");
    assertThat(map.get(a)).isEqualTo("a");
    assertThat(map.get(b)).isNull();
    assertThat(map.get(null)).isNull();
  }

  @Test
  void computeIfAbsentMakesAValueOncePerKey() {
    IdentityWeakMap<Object> map = new IdentityWeakMap<>();
    Object key = new Object();
    Object first = map.computeIfAbsent(key, k -> new Object());
    assertThat(map.computeIfAbsent(key, k -> new Object())).isSameAs(first);
    assertThat(map.values()).containsExactly(first);
  }

  /** Without any further write to the map: size() only reads, the cleaner thread removes them. */
  @Test
  void collectedKeysLeaveTheMap() throws InterruptedException {
    IdentityWeakMap<String> map = new IdentityWeakMap<>();
    for (int i = 0; i < 1_000; i++) {
      map.put(new Object(), "garbage");
    }
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (map.size() > 0 && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(20);
    }
    assertThat(map.size()).isZero();
  }
}
