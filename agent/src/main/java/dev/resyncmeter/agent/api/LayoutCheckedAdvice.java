package dev.resyncmeter.agent.api;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isBridge;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.runtime.AgentFaults;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.field.FieldList;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.method.MethodList;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.implementation.bytecode.StackManipulation;
import net.bytebuddy.implementation.bytecode.constant.TextConstant;
import net.bytebuddy.implementation.bytecode.member.MethodInvocation;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

/**
 * The advice of one library class, applied only when the class has every field the advice reads and
 * every method it advises. A class of another shape (an unrecognised client version) is left as it
 * is and switches its unit off, instead of failing in the middle of the host's class loading.
 */
public final class LayoutCheckedAdvice implements AgentBuilder.Transformer {

  private final UnitSwitch unit;
  private final List<Field> fields = new ArrayList<>();
  private final List<Advised> advised = new ArrayList<>();
  private final List<AsmVisitorWrapper> visitors = new ArrayList<>();

  private LayoutCheckedAdvice(UnitSwitch unit) {
    this.unit = unit;
  }

  /** Units get theirs from their rules ({@link WeavingRules#layoutChecked}), bound to their part's switch. */
  static LayoutCheckedAdvice of(UnitSwitch unit) {
    return new LayoutCheckedAdvice(unit);
  }

  /** The class must declare this field, of this type, because advice reads it. */
  public LayoutCheckedAdvice field(String name, String typeName) {
    fields.add(new Field(name, typeName));
    return this;
  }

  /** Advice on the methods named {@code name} taking {@code arguments} arguments; there must be one. */
  public LayoutCheckedAdvice method(String name, int arguments, Class<?> advice) {
    return advice(name + " with " + arguments + " arguments", named(name).and(takesArguments(arguments)), advice, true);
  }

  /** Advice on the constructors taking {@code arguments} arguments; there must be one. */
  public LayoutCheckedAdvice constructor(int arguments, Class<?> advice) {
    return advice("a constructor with " + arguments + " arguments", isConstructor().and(takesArguments(arguments)), advice, true);
  }

  /** Advice on the methods {@code matcher} selects; when {@code required}, there must be one. */
  public LayoutCheckedAdvice advice(
      String what, ElementMatcher<? super MethodDescription> matcher, Class<?> advice, boolean required) {
    advised.add(new Advised(what, matcher, advice, required));
    return this;
  }

  /**
   * Advice on an informer handler's own {@code onAdd(obj)}, {@code onUpdate(old, new)} and {@code
   * onDelete(obj, boolean)}, the shape of client-java's and fabric8's handler interfaces, but not on
   * its bridge or abstract methods. None is required: a handler need not override every method.
   */
  public LayoutCheckedAdvice handlerMethods(Class<?> addOrDelete, Class<?> update) {
    advice("onAdd", handlerMethod("onAdd", 1), addOrDelete, false);
    advice("onUpdate", handlerMethod("onUpdate", 2), update, false);
    return advice("onDelete", handlerMethod("onDelete", 2).and(takesArgument(1, boolean.class)), addOrDelete, false);
  }

  private static ElementMatcher.Junction<MethodDescription> handlerMethod(String name, int arguments) {
    return named(name).and(takesArguments(arguments)).and(not(isBridge())).and(not(isAbstract()));
  }

  /** Another rewrite of the class (a member substitution), applied with the advice. */
  public LayoutCheckedAdvice visitor(AsmVisitorWrapper visitor) {
    visitors.add(visitor);
    return this;
  }

  @Override
  public DynamicType.Builder<?> transform(
      DynamicType.Builder<?> builder,
      TypeDescription type,
      ClassLoader loader,
      JavaModule module,
      ProtectionDomain domain) {
    if (!AdviceReach.seesAgent(loader)) {
      // Woven advice calls the agent's classes: from a loader that cannot reach them it would only fail.
      unit.turnOff(type.getName() + " is loaded by " + loader + ", which cannot see the agent's classes");
      return builder;
    }
    String missing = missing(type);
    if (missing != null) {
      unit.turnOff(type.getName() + " has no " + missing + " (a client version this agent does not know?)");
      return builder;
    }
    unit.woven();
    AdvisingUnits.add(unit);
    if (AdviceReach.failsWeaving(type.getName())) {
      builder = builder.visit(FailingWeaving.INSTANCE);
    }
    for (Advised a : advised) {
      builder = builder.visit(Advice.to(a.advice).withExceptionHandler(faultsTo(unit.component())).on(a.matcher));
    }
    for (AsmVisitorWrapper visitor : visitors) {
      builder = builder.visit(visitor);
    }
    return builder;
  }

  /**
   * The code advice runs with the {@link Throwable} it suppressed on the stack: it hands it to {@link
   * AgentFaults#adviceFault} with {@code component}. Bridges therefore catch nothing: a fault anywhere
   * below an advice method lands here, counted under the unit whose advice it is.
   */
  public static StackManipulation faultsTo(String component) {
    return new StackManipulation.Compound(new TextConstant(component), MethodInvocation.invoke(adviceFaultMethod()));
  }

  private static MethodDescription adviceFaultMethod() {
    try {
      return new MethodDescription.ForLoadedMethod(AgentFaults.class.getMethod("adviceFault", Throwable.class, String.class));
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

  /** What the class lacks, in words, or null when it has everything. */
  String missing(TypeDescription type) {
    for (Field field : fields) {
      boolean present =
          type.getDeclaredFields().stream()
              .anyMatch(f -> f.getName().equals(field.name) && typeName(f).equals(field.typeName));
      if (!present) {
        return "field '" + field.name + "' of type " + field.typeName;
      }
    }
    for (Advised a : advised) {
      if (a.required && type.getDeclaredMethods().filter(a.matcher).isEmpty()) {
        return a.what;
      }
    }
    return null;
  }

  /** The names of the fields it requires. */
  List<String> requiredFieldNames() {
    List<String> names = new ArrayList<>();
    for (Field field : fields) {
      names.add(field.name);
    }
    return names;
  }

  /** The advice classes it weaves. */
  List<Class<?>> adviceClasses() {
    List<Class<?>> classes = new ArrayList<>();
    for (Advised a : advised) {
      classes.add(a.advice);
    }
    return classes;
  }

  private static String typeName(FieldDescription.InDefinedShape field) {
    return field.getType().asErasure().getName();
  }

  private record Field(String name, String typeName) {}

  /** What {@code resyncmeter.test.failWeaving} adds to its class: a rewrite that fails while ByteBuddy weaves. */
  private enum FailingWeaving implements AsmVisitorWrapper {
    INSTANCE;

    @Override
    public int mergeWriter(int flags) {
      return flags;
    }

    @Override
    public int mergeReader(int flags) {
      return flags;
    }

    @Override
    public net.bytebuddy.jar.asm.ClassVisitor wrap(
        TypeDescription type,
        net.bytebuddy.jar.asm.ClassVisitor visitor,
        net.bytebuddy.implementation.Implementation.Context context,
        net.bytebuddy.pool.TypePool pool,
        FieldList<FieldDescription.InDefinedShape> fields,
        MethodList<?> methods,
        int writerFlags,
        int readerFlags) {
      throw new IllegalStateException("weaving failure injected into " + type.getName() + " (" + AdviceReach.FAIL_WEAVING_PROPERTY + ")");
    }
  }

  private record Advised(String what, ElementMatcher<? super MethodDescription> matcher, Class<?> advice, boolean required) {}
}
