package dev.resyncmeter.agent.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.start.Parts;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.asm.Advice;
import org.junit.jupiter.api.Test;

/**
 * The layout a unit checks before weaving is the layout its advice reads: a field the advice reads
 * with {@code @Advice.FieldValue} but the check does not require would fail inside the host's class
 * loading on a client version without it, instead of switching the unit off with its one line.
 */
class LayoutChecksTest {

  @Test
  void everyFieldAnAdviceReadsIsOneItsLayoutCheckRequires() throws Exception {
    int checked = 0;
    for (Part part : Parts.ALL) {
      for (WeavingRules.Rule rule : part.weaving().install(new WeavingRules(part)).rules()) {
        if (!(rule.transformer() instanceof LayoutCheckedAdvice layout)) {
          continue;
        }
        for (Class<?> advice : layout.adviceClasses()) {
          assertThat(layout.requiredFieldNames()).as(rule.id() + " weaving " + advice.getName()).containsAll(fieldsRead(advice));
          checked++;
        }
      }
    }
    assertThat(checked).as("advice classes checked").isGreaterThan(20);
  }

  @Test
  void aFieldReadButNotRequiredIsFound() {
    LayoutCheckedAdvice layout = LayoutCheckedAdvice.of(new dev.resyncmeter.agent.runtime.UnitSwitch("test", "test")).field("queue", "java.util.LinkedList");
    assertThat(fieldsRead(ReadsTwoFields.class)).containsExactlyInAnyOrder("queue", "dirty");
    assertThat(layout.requiredFieldNames()).doesNotContain("dirty");
  }

  static final class ReadsTwoFields {
    @Advice.OnMethodEnter
    static void enter(@Advice.FieldValue("queue") Object queue, @Advice.FieldValue("dirty") Object dirty) {}
  }

  /** The fields the advice's methods read with {@code @Advice.FieldValue}. */
  private static List<String> fieldsRead(Class<?> advice) {
    List<String> names = new ArrayList<>();
    for (Method method : advice.getDeclaredMethods()) {
      for (Parameter parameter : method.getParameters()) {
        Advice.FieldValue read = parameter.getAnnotation(Advice.FieldValue.class);
        if (read != null && !names.contains(read.value())) {
          names.add(read.value());
        }
      }
    }
    return names;
  }
}
