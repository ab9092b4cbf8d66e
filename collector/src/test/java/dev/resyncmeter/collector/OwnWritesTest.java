package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which updates are echoes of this process's own writes, whichever comes first: the write's answer or its watch event. */
class OwnWritesTest {

  private long now = 1_000;
  private final OwnWrites writes = new OwnWrites(() -> now);

  private static WrittenObject object(String uid, String version) {
    return new WrittenObject("ns", "cm-" + uid, uid, version);
  }

  private static final String KEY_A = object("a", null).key();

  /** A write of object a is sent, and an update of a to version 11 comes before its answer: it waits for it. */
  private PendingEcho updateWhileAWriteIsInFlight() {
    writes.writeSent(KEY_A);
    return writes.check(object("a", "11"));
  }

  @Test
  void anUpdateToTheVersionAWriteWasAnsweredWithIsAnEcho() {
    assertThat(writes.anyWrite()).as("before any write, nothing is looked up").isFalse();
    writes.writeSent(KEY_A);
    writes.writeAnswered(KEY_A, object("a", "11"));

    assertThat(writes.check(object("a", "11"))).isSameAs(PendingEcho.ECHO);
    assertThat(writes.check(object("a", "12"))).as("another version: someone else's write").isNull();
    assertThat(writes.check(object("b", "11"))).as("the same version of another object").isNull();
  }

  @Test
  void onlyTheLastAnsweredVersionOfAnObjectIsKept() {
    writes.writeSent(KEY_A);
    writes.writeAnswered(KEY_A, object("a", "11"));
    writes.writeSent(KEY_A);
    writes.writeAnswered(KEY_A, object("a", "13"));

    assertThat(writes.check(object("a", "11"))).isNull();
    assertThat(writes.check(object("a", "13"))).isSameAs(PendingEcho.ECHO);
    assertThat(writes.objects()).isEqualTo(1);
  }

  @Test
  void anEventBeforeItsAnswerIsPendingAndTheAnswerSettlesItAsAnEcho() {
    PendingEcho pending = updateWhileAWriteIsInFlight();
    assertThat(pending).isNotNull().isNotSameAs(PendingEcho.ECHO);
    assertThat(pending.settled()).isFalse();

    writes.writeAnswered(KEY_A, object("a", "11"));

    assertThat(pending.settled()).isTrue();
    assertThat(pending.echo()).isTrue();
    assertThat(writes.pendingUpdates()).isZero();
  }

  @Test
  void anEventBeforeAnAnswerWithAnotherVersionIsNoEcho() {
    PendingEcho pending = updateWhileAWriteIsInFlight();

    writes.writeAnswered(KEY_A, object("a", "12"));

    assertThat(pending.settled()).isTrue();
    assertThat(pending.echo()).as("the update carried another client's write").isFalse();
  }

  @Test
  void aFailedWriteSettlesWhatWaitedOnItAsNoEcho() {
    PendingEcho pending = updateWhileAWriteIsInFlight();
    writes.writeAnswered(KEY_A, null);
    assertThat(pending.settled()).isTrue();
    assertThat(pending.echo()).isFalse();
  }

  @Test
  void anUpdateOfAnObjectWithNoWriteInFlightIsNoEchoAtOnce() {
    writes.writeSent("ns/other");
    assertThat(writes.check(object("a", "11"))).isNull();
    assertThat(writes.pendingUpdates()).isZero();
  }

  @Test
  void aWriteNeverAnsweredStopsCountingAsInFlightAfterItsLimit() {
    writes.writeSent(KEY_A);
    now += OwnWrites.IN_FLIGHT_LIMIT_NANOS + 1;
    assertThat(writes.check(object("a", "11"))).isNull();
  }

  @Test
  void anUpdateWaitingOnAWriteLostLongAgoIsToldNoEchoAtTheNextWrite() {
    PendingEcho pending = updateWhileAWriteIsInFlight();
    now += OwnWrites.IN_FLIGHT_LIMIT_NANOS + 1;
    writes.writeSent("ns/other");
    assertThat(pending.settled()).isTrue();
    assertThat(pending.echo()).isFalse();
  }

  @Test
  void anUpdateWaitingOnALostWriteIsToldNoEchoWhenSettlingLostWritesEvenWithNoWriteAfter() {
    PendingEcho pending = updateWhileAWriteIsInFlight();
    writes.settleLost();
    assertThat(pending.settled()).as("within its limit it still waits").isFalse();
    now += OwnWrites.IN_FLIGHT_LIMIT_NANOS + 1;
    writes.settleLost();
    assertThat(pending.settled()).isTrue();
    assertThat(pending.echo()).isFalse();
  }

  @Test
  void anAnsweredVersionIsForgottenAfterItsAge() {
    writes.writeSent(KEY_A);
    writes.writeAnswered(KEY_A, object("a", "11"));
    now += OwnWrites.MAX_AGE_NANOS + TimeUnit.SECONDS.toNanos(1);
    assertThat(writes.check(object("a", "11"))).isNull();
    assertThat(writes.objects()).isZero();
  }

  @Test
  void theEldestObjectsAreEvictedPastTheCap() {
    for (int i = 0; i <= OwnWrites.MAX_OBJECTS; i++) {
      writes.writeAnswered(null, object("u" + i, "1"));
    }
    assertThat(writes.objects()).isEqualTo(OwnWrites.MAX_OBJECTS);
    assertThat(writes.check(object("u0", "1"))).as("evicted: no longer recognised").isNull();
    assertThat(writes.check(object("u" + OwnWrites.MAX_OBJECTS, "1"))).isSameAs(PendingEcho.ECHO);
  }

  @Test
  void anUnsettledEchoAskedForItsTriggerNowIsAChangeUntilItsAnswerComes() {
    PendingEcho pending = updateWhileAWriteIsInFlight();
    java.util.List<PendingEcho> echoes = java.util.List.of(pending);

    assertThat(PendingEcho.settled(Trigger.OWN_WRITE, echoes)).isEqualTo(Trigger.CHANGE);
    assertThat(pending.settled()).as("still waits: its handler's count follows the answer").isFalse();
    writes.writeAnswered(KEY_A, object("a", "11"));
    assertThat(PendingEcho.settled(Trigger.OWN_WRITE, echoes)).isEqualTo(Trigger.OWN_WRITE);
    assertThat(PendingEcho.settled(Trigger.CHANGE, echoes)).as("a real change outranks the echo").isEqualTo(Trigger.CHANGE);
  }

  @Test
  void theKeyOfAWriteComesFromItsUrl() {
    assertThat(WrittenObject.keyOfUrl("http://127.0.0.1:6443/api/v1/namespaces/ns/configmaps/cm-a?fieldManager=x")).isEqualTo("ns/cm-a");
    assertThat(WrittenObject.keyOfUrl("https://h/apis/apps/v1/namespaces/ns/deployments/d/status")).isEqualTo("ns/d");
    assertThat(WrittenObject.keyOfUrl("https://h/apis/example.com/v1/widgets/w")).isEqualTo("/w");
    assertThat(WrittenObject.keyOfUrl("https://h/api/v1/namespaces/ns")).isEqualTo("/ns");
    assertThat(WrittenObject.keyOfUrl("https://h/prefix/api/v1/namespaces/ns/configmaps/c")).isEqualTo("ns/c");
    assertThat(WrittenObject.keyOfUrl("https://h/api/v1/namespaces/ns/configmaps")).as("a create names no object").isNull();
    assertThat(WrittenObject.keyOfUrl("https://h/healthz")).isNull();
  }
}
