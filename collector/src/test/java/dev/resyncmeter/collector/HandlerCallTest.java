package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The scope of one handler call on one thread, and the queue adds it sees. */
class HandlerCallTest {

  private final HandlerCall call = ThreadContext.current().handlerCall();

  @Test
  void countsTheQueueAddsMadeDuringOneCall() {
    assertThat(call.begin()).isTrue();
    call.queueAdded();
    call.queueAdded();
    assertThat(call.end()).isEqualTo(2);
  }

  @Test
  void aCallWithoutAddsSeesNone() {
    call.begin();
    assertThat(call.end()).isZero();
  }

  @Test
  void addsOutsideAnyCallAreNotChargedToTheNextCall() {
    call.queueAdded();
    call.begin();
    assertThat(call.end()).isZero();
  }

  @Test
  void aNestedCallDoesNotOpenASecondScope() {
    assertThat(call.begin()).isTrue();
    assertThat(call.begin()).isFalse();
    call.queueAdded();
    assertThat(call.end()).isEqualTo(1);
  }

  @Test
  void addsOnAnotherThreadDoNotCount() throws InterruptedException {
    call.begin();
    AtomicInteger otherThreadSaw = new AtomicInteger(-1);
    Thread other =
        new Thread(
            () -> {
              ThreadContext.current().handlerCall().queueAdded();
              ThreadContext.current().handlerCall().begin();
              otherThreadSaw.set(ThreadContext.current().handlerCall().end());
            });
    other.start();
    other.join(10_000);
    assertThat(otherThreadSaw).hasValue(0);
    assertThat(call.end()).isZero();
  }
}
