package dev.resyncmeter.agent.clientjava;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.runtime.ClassLabels;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class HandlerNamesTest {

  static class NestedHandler {}

  @Test
  void aNestedClassIsOuterDollarInner() {
    assertThat(ClassLabels.of(NestedHandler.class)).isEqualTo("HandlerNamesTest$NestedHandler");
  }

  @Test
  void aTopLevelClassIsItsSimpleName() {
    assertThat(ClassLabels.of(HandlerNamesTest.class)).isEqualTo("HandlerNamesTest");
  }

  @Test
  void anAnonymousClassIsNamedAfterItsEnclosingClass() {
    Object anonymous = new Object() {};
    assertThat(anonymous.getClass().getName()).contains("$1");
    assertThat(ClassLabels.of(anonymous.getClass())).isEqualTo("HandlerNamesTest");
  }

  @Test
  void aLambdaIsNamedAfterTheClassThatDefinesIt() {
    Supplier<String> lambda = () -> "x";
    assertThat(ClassLabels.of(lambda.getClass())).isEqualTo("HandlerNamesTest");
  }

  @Test
  void aLocalClassIsNamedAfterItsEnclosingClass() {
    class Local {}
    assertThat(ClassLabels.of(Local.class)).isEqualTo("HandlerNamesTest");
  }

  @Test
  void aControllerWatchHandlerWaitsForItsControllerThenTakesItsName() {
    Object handler = new Object();
    Object queue = new Object();
    HandlerNames.controllerWatchHandler(handler, queue);
    assertThat(HandlerNames.labelOrPending(handler)).isNull();
    HandlerNames.controllerBuilt("my-controller", queue);
    assertThat(HandlerNames.labelOrPending(handler)).isEqualTo("my-controller");
  }

  /** A host class whose equals and hashCode fail: the names must never call them. */
  static final class HostileQueue {
    @Override
    public boolean equals(Object other) {
      throw new IllegalStateException("equals called");
    }

    @Override
    public int hashCode() {
      throw new IllegalStateException("hashCode called");
    }
  }

  @Test
  void handlersAndQueuesAreKeptByIdentityWithoutCallingTheirEqualsOrHashCode() {
    HostileQueue handler = new HostileQueue();
    HostileQueue queue = new HostileQueue();
    HandlerNames.controllerWatchHandler(handler, queue);
    HandlerNames.controllerBuilt("hostile", queue);
    assertThat(HandlerNames.labelOrPending(handler)).isEqualTo("hostile");
  }

  @Test
  void anyOtherHandlerIsNamedAfterItsClassAtOnce() {
    assertThat(HandlerNames.labelOrPending(new NestedHandler())).isEqualTo("HandlerNamesTest$NestedHandler");
  }
}
