package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HandlerCallTest {

  @Test
  void countsTheQueueAddsMadeDuringOneCall() {
    assertThat(ThreadContext.current().handlerCall().begin()).isTrue();
    ThreadContext.current().handlerCall().queueAdded();
    ThreadContext.current().handlerCall().queueAdded();
    assertThat(ThreadContext.current().handlerCall().end()).isEqualTo(2);
  }

  @Test
  void aCallWithoutAddsSeesNone() {
    ThreadContext.current().handlerCall().begin();
    assertThat(ThreadContext.current().handlerCall().end()).isZero();
  }

  @Test
  void addsOutsideAnyCallAreNotChargedToTheNextCall() {
    ThreadContext.current().handlerCall().queueAdded();
    ThreadContext.current().handlerCall().begin();
    assertThat(ThreadContext.current().handlerCall().end()).isZero();
  }

  @Test
  void aNestedCallDoesNotOpenASecondScope() {
    assertThat(ThreadContext.current().handlerCall().begin()).isTrue();
    assertThat(ThreadContext.current().handlerCall().begin()).isFalse();
    ThreadContext.current().handlerCall().queueAdded();
    assertThat(ThreadContext.current().handlerCall().end()).isEqualTo(1);
  }

  @Test
  void addsOnAnotherThreadDoNotCount() throws InterruptedException {
    ThreadContext.current().handlerCall().begin();
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
    assertThat(ThreadContext.current().handlerCall().end()).isZero();
  }
}
