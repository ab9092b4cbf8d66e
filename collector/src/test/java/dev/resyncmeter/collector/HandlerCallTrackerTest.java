package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HandlerCallTrackerTest {

  @Test
  void countsTheQueueAddsMadeDuringOneCall() {
    assertThat(HandlerCallTracker.begin()).isTrue();
    HandlerCallTracker.queueAdded();
    HandlerCallTracker.queueAdded();
    assertThat(HandlerCallTracker.end()).isEqualTo(2);
  }

  @Test
  void aCallWithoutAddsSeesNone() {
    HandlerCallTracker.begin();
    assertThat(HandlerCallTracker.end()).isZero();
  }

  @Test
  void addsOutsideAnyCallAreNotChargedToTheNextCall() {
    HandlerCallTracker.queueAdded();
    HandlerCallTracker.begin();
    assertThat(HandlerCallTracker.end()).isZero();
  }

  @Test
  void aNestedCallDoesNotOpenASecondScope() {
    assertThat(HandlerCallTracker.begin()).isTrue();
    assertThat(HandlerCallTracker.begin()).isFalse();
    HandlerCallTracker.queueAdded();
    assertThat(HandlerCallTracker.end()).isEqualTo(1);
  }

  @Test
  void addsOnAnotherThreadDoNotCount() throws InterruptedException {
    HandlerCallTracker.begin();
    AtomicInteger otherThreadSaw = new AtomicInteger(-1);
    Thread other =
        new Thread(
            () -> {
              HandlerCallTracker.queueAdded();
              HandlerCallTracker.begin();
              otherThreadSaw.set(HandlerCallTracker.end());
            });
    other.start();
    other.join(10_000);
    assertThat(otherThreadSaw).hasValue(0);
    assertThat(HandlerCallTracker.end()).isZero();
  }
}
