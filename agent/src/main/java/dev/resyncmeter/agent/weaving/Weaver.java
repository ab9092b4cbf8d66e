package dev.resyncmeter.agent.weaving;

import dev.resyncmeter.agent.api.WeavingRules;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The agent's class file transformer. A class not ignored by name is matched against what each part
 * weaves (its selection: names, and a handler interface whose implementations are found by reading
 * class file headers); a class no part selects is left alone, without ByteBuddy. A selected class
 * comes woven ahead of time when the agent was built with its very class file ({@link
 * PrewovenClasses}); else the parts' weaving rules are built (on first need) and ByteBuddy weaves it
 * ({@link ByteBuddyWeaving}). A fault is reported to the listener and leaves the class as it was. Not
 * ByteBuddy's {@code AgentBuilder}: its transformer class generates a subclass of itself with ByteBuddy
 * when it is first loaded, a quarter of a second of the host's start on two cores.
 */
final class Weaver implements ClassFileTransformer {

  private final NamePrefixes ignored;
  /** What each part weaves, without its transformers: decides whether a class is woven at all. */
  private final Matching selection;
  private final Supplier<List<WeavingRules.Rule>> makeRules;
  private final AtomicReference<Matching> rules = new AtomicReference<>();
  private final PrewovenClasses prewoven;
  private final WeavingListener listener;
  private final AtomicReference<ByteBuddyWeaving> byteBuddy = new AtomicReference<>();
  /** Set while this thread weaves: a class its weaving loads goes by unchanged, as with ByteBuddy's own transformer. */
  private final ThreadLocal<Boolean> weaving = new ThreadLocal<>();

  /**
   * Selects with {@code selection} and weaves with the rules {@code makeRules} makes on first need;
   * every rule that matches a selected class applies, in order.
   */
  Weaver(
      NamePrefixes ignored,
      List<WeavingRules.Rule> selection,
      Supplier<List<WeavingRules.Rule>> makeRules,
      PrewovenClasses prewoven,
      WeavingListener listener) {
    this.ignored = ignored;
    this.selection = new Matching(selection);
    this.makeRules = makeRules;
    this.prewoven = prewoven;
    this.listener = listener;
  }

  /** Selects and weaves with the same rules. */
  Weaver(NamePrefixes ignored, List<WeavingRules.Rule> rules, PrewovenClasses prewoven, WeavingListener listener) {
    this(ignored, rules, () -> rules, prewoven, listener);
  }

  @Override
  public byte[] transform(ClassLoader loader, String className, Class<?> classBeingRedefined, ProtectionDomain domain, byte[] classFile) {
    return transform(null, loader, className, classBeingRedefined, domain, classFile);
  }

  @Override
  public byte[] transform(
      Module module, ClassLoader loader, String className, Class<?> classBeingRedefined, ProtectionDomain domain, byte[] classFile) {
    if (className == null || weaving.get() != null) {
      return null;
    }
    String name = className.replace('/', '.');
    if (ignored.ignores(name)) {
      return null;
    }
    weaving.set(Boolean.TRUE);
    try {
      List<WeavingRules.Rule> selected = selection.matching(loader, name, classFile);
      return selected.isEmpty() ? null : weave(selected, module, loader, name, domain, classFile);
    } catch (Throwable t) {
      listener.failed(name, t);
      return null;
    } finally {
      weaving.remove();
    }
  }

  /** The parts' selections that match a class about to be defined, in order. */
  List<WeavingRules.Rule> selecting(ClassLoader loader, String name, byte[] classFile) {
    return selection.matching(loader, name, classFile);
  }

  /** The weaving rules that match it, in order; builds them on first need. */
  List<WeavingRules.Rule> weavingRules(ClassLoader loader, String name, byte[] classFile) {
    return weavingRules().matching(loader, name, classFile);
  }

  /**
   * The weaving rules, built now if they were not yet (the units' own setup runs with them). Built
   * under no lock of ours: building loads the units' and ByteBuddy's classes, and a host thread that
   * holds its class loader's lock while it waited for ours could deadlock with the building thread. Two
   * threads may build them at once; the first kept is used by both.
   */
  private Matching weavingRules() {
    Matching made = rules.get();
    if (made == null) {
      rules.compareAndSet(null, new Matching(makeRules.get()));
      made = rules.get();
    }
    return made;
  }

  private byte[] weave(List<WeavingRules.Rule> selected, Module module, ClassLoader loader, String name, ProtectionDomain domain, byte[] classFile) {
    try {
      byte[] woven = prewoven.woven(name, classFile, selected, loader);
      if (woven == null) {
        woven = byteBuddy().weave(weavingRules(loader, name, classFile), module, loader, name, domain, classFile);
      }
      listener.woven(name, loader);
      return woven;
    } catch (Throwable t) {
      listener.failed(name, t);
      return null;
    } finally {
      listener.completed();
    }
  }

  /** ByteBuddy's weaving, made the first time a class needs it (under no lock, as the rules). */
  ByteBuddyWeaving byteBuddy() {
    ByteBuddyWeaving made = byteBuddy.get();
    if (made == null) {
      byteBuddy.compareAndSet(null, new ByteBuddyWeaving());
      made = byteBuddy.get();
    }
    return made;
  }

  /** Rules and the handler interfaces they look for: which of them match a class. */
  private static final class Matching {
    private final List<WeavingRules.Rule> rules;
    private final SuperTypes superTypes;
    /** Per rule: the bit of its handler interface in {@link SuperTypes}' answers; 0 for none. */
    private final int[] interfaceBits;

    Matching(List<WeavingRules.Rule> rules) {
      this.rules = List.copyOf(rules);
      List<String> interfaces = new ArrayList<>();
      for (WeavingRules.Rule rule : this.rules) {
        if (rule.handlerInterface() != null && !interfaces.contains(rule.handlerInterface())) {
          interfaces.add(rule.handlerInterface());
        }
      }
      this.superTypes = new SuperTypes(interfaces);
      this.interfaceBits = new int[this.rules.size()];
      for (int i = 0; i < interfaceBits.length; i++) {
        String handlerInterface = this.rules.get(i).handlerInterface();
        interfaceBits[i] = handlerInterface == null ? 0 : superTypes.bit(handlerInterface);
      }
    }

    /** The rules that match a class about to be defined; reads its class file's header only, and only if a rule looks for implementations. */
    List<WeavingRules.Rule> matching(ClassLoader loader, String name, byte[] classFile) {
      List<WeavingRules.Rule> matched = List.of();
      int implemented = -1;
      for (int i = 0; i < rules.size(); i++) {
        WeavingRules.Rule rule = rules.get(i);
        boolean matches = rule.names().contains(name);
        if (!matches && rule.looksIn(loader)) {
          if (implemented < 0) {
            implemented = superTypes.implementedBy(loader, classFile);
          }
          matches = (implemented & interfaceBits[i]) != 0;
        }
        if (matches) {
          if (matched.isEmpty()) {
            matched = new ArrayList<>(2);
          }
          matched.add(rule);
        }
      }
      return matched;
    }

    /** Whether a rule matches a loaded class: by name, or by the super types reflection gives. */
    boolean matchesLoaded(Class<?> type) {
      int implemented = -1;
      for (int i = 0; i < rules.size(); i++) {
        WeavingRules.Rule rule = rules.get(i);
        if (rule.names().contains(type.getName())) {
          return true;
        }
        if (rule.looksIn(type.getClassLoader())) {
          if (implemented < 0) {
            implemented = superTypes.implementedBy(type);
          }
          if ((implemented & interfaceBits[i]) != 0) {
            return true;
          }
        }
      }
      return false;
    }
  }

  /**
   * The classes the JVM has loaded; none once it is exiting (the JVM then answers null: a host that
   * exits while the agent still starts is no fault).
   */
  static Class<?>[] loadedClasses(Instrumentation instrumentation) {
    Class<?>[] loaded = instrumentation.getAllLoadedClasses();
    return loaded == null ? new Class<?>[0] : loaded;
  }

  /**
   * Weaves the classes already loaded that a part selects: retransformed in small batches with a
   * pause between them (each batch stops the world), looking again until a look finds no new one (the
   * host goes on loading classes meanwhile).
   */
  void retransformLoaded(Instrumentation instrumentation, int batchSize, long pauseMillis) {
    // Attached: what the units set up for classes loaded before (JOSDK's names of its earlier event
    // sources) must be there before any retransformed class runs.
    weavingRules();
    Set<Class<?>> looked = Collections.newSetFromMap(new IdentityHashMap<>());
    for (int look = 0; look < 100; look++) {
      List<Class<?>> matched = new ArrayList<>();
      for (Class<?> type : loadedClasses(instrumentation)) {
        if (looked.add(type) && matchesLoaded(instrumentation, type)) {
          matched.add(type);
        }
      }
      if (matched.isEmpty()) {
        return;
      }
      for (int from = 0; from < matched.size(); from += batchSize) {
        if (from > 0) {
          sleep(pauseMillis);
        }
        List<Class<?>> batch = matched.subList(from, Math.min(matched.size(), from + batchSize));
        try {
          instrumentation.retransformClasses(batch.toArray(new Class<?>[0]));
        } catch (Throwable t) {
          for (Class<?> type : batch) {
            listener.failed(type.getName(), t);
          }
        }
      }
    }
  }

  /** Whether a part selects a loaded class: by name, or by the super types reflection gives. */
  boolean matchesLoaded(Instrumentation instrumentation, Class<?> type) {
    try {
      return !type.isArray()
          && !type.isPrimitive()
          && !type.isHidden()
          && !ignored.ignores(type.getName())
          && instrumentation.isModifiableClass(type)
          && selection.matchesLoaded(type);
    } catch (Throwable t) {
      listener.failed(type.getName(), t);
      return false;
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
