package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ThreadRowsTest {

  @Test
  void countsOfThreadsAddingAtOnceSumExactly() throws InterruptedException {
    ThreadRows rows = new ThreadRows(3);
    int threads = 4;
    int perThread = 200_000;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker =
          new Thread(
              () -> {
                ThreadContext context = ThreadContext.current();
                awaitQuietly(start);
                for (int i = 0; i < perThread; i++) {
                  rows.add(context.lastRow(), 0, 1);
                  rows.add(context.lastRow(), 2, 5);
                }
              });
      worker.start();
      workers.add(worker);
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(worker.isAlive()).isFalse();
    }

    assertThat(rows.sum()).containsExactly((long) threads * perThread, 0, 5L * threads * perThread);
    assertThat(rows.ownRows()).isEqualTo(threads);
  }

  @Test
  void aThreadKeepsItsRowWhenItCountsElsewhereBetween() {
    ThreadRows first = new ThreadRows(1);
    ThreadRows second = new ThreadRows(1);
    ThreadContext context = ThreadContext.current();

    first.add(context.lastRow(), 0, 1);
    second.add(context.lastRow(), 0, 1);
    first.add(context.lastRow(), 0, 1);

    assertThat(first.sum()).containsExactly(2);
    assertThat(second.sum()).containsExactly(1);
    assertThat(first.ownRows()).isEqualTo(1);
  }

  @Test
  void threadsPastTheLimitShareOneRowAndStillCountExactly() throws InterruptedException {
    ThreadRows rows = new ThreadRows(1);
    int threads = ThreadRows.MAX_ROWS + 10;
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> rows.add(ThreadContext.current().lastRow(), 0, 3));
      thread.start();
      thread.join(TimeUnit.SECONDS.toMillis(10));
      assertThat(thread.isAlive()).isFalse();
    }

    assertThat(rows.ownRows()).isEqualTo(ThreadRows.MAX_ROWS);
    assertThat(rows.sum()).containsExactly(3L * threads);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
