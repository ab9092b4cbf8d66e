package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HandlerCallTrackerTest {

  @Test
  void countsTheQueueAddsMadeDuringOneCall() {
    assertThat(HandlerCallTracker.begin(ThreadContext.current())).isTrue();
    HandlerCallTracker.queueAdded(ThreadContext.current());
    HandlerCallTracker.queueAdded(ThreadContext.current());
    assertThat(HandlerCallTracker.end(ThreadContext.current())).isEqualTo(2);
  }

  @Test
  void aCallWithoutAddsSeesNone() {
    HandlerCallTracker.begin(ThreadContext.current());
    assertThat(HandlerCallTracker.end(ThreadContext.current())).isZero();
  }

  @Test
  void addsOutsideAnyCallAreNotChargedToTheNextCall() {
    HandlerCallTracker.queueAdded(ThreadContext.current());
    HandlerCallTracker.begin(ThreadContext.current());
    assertThat(HandlerCallTracker.end(ThreadContext.current())).isZero();
  }

  @Test
  void aNestedCallDoesNotOpenASecondScope() {
    assertThat(HandlerCallTracker.begin(ThreadContext.current())).isTrue();
    assertThat(HandlerCallTracker.begin(ThreadContext.current())).isFalse();
    HandlerCallTracker.queueAdded(ThreadContext.current());
    assertThat(HandlerCallTracker.end(ThreadContext.current())).isEqualTo(1);
  }

  @Test
  void addsOnAnotherThreadDoNotCount() throws InterruptedException {
    HandlerCallTracker.begin(ThreadContext.current());
    AtomicInteger otherThreadSaw = new AtomicInteger(-1);
    Thread other =
        new Thread(
            () -> {
              HandlerCallTracker.queueAdded(ThreadContext.current());
              HandlerCallTracker.begin(ThreadContext.current());
              otherThreadSaw.set(HandlerCallTracker.end(ThreadContext.current()));
            });
    other.start();
    other.join(10_000);
    assertThat(otherThreadSaw).hasValue(0);
    assertThat(HandlerCallTracker.end(ThreadContext.current())).isZero();
  }
}
