package dev.resyncmeter.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a missing tool fails a test (CI) and when it skips it (a developer's machine). */
class ToolsTest {

  @Test
  void anyNonEmptyCiVariableMeansCi() {
    assertThat(Tools.isCi("true")).isTrue();
    assertThat(Tools.isCi("1")).isTrue();
    assertThat(Tools.isCi("yes")).isTrue();
    assertThat(Tools.isCi("false")).as("a value is a value: CI services set their own").isTrue();
  }

  @Test
  void anUnsetOrEmptyCiVariableMeansADevelopersMachine() {
    assertThat(Tools.isCi(null)).isFalse();
    assertThat(Tools.isCi("")).isFalse();
  }
}
