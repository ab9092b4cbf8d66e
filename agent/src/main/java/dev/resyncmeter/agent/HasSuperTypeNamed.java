package dev.resyncmeter.agent;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.bytebuddy.description.type.TypeDefinition;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Matches a class that has a super class or interface of one name, walking the hierarchy by names
 * alone. Other agents and mock makers add interfaces to the classes they rewrite (OpenTelemetry's
 * {@code VirtualFieldAccessor$...}, defined in the boot loader without a class file); ByteBuddy's own
 * {@code hasSuperType} must read their class files to go on and fails the whole class. Here a type whose
 * ancestors cannot be read ends that branch of the walk: it is not the type sought, and none of ours
 * could extend it. Nothing in {@code java.*} can extend a library type, so the walk does not enter it.
 */
public final class HasSuperTypeNamed extends ElementMatcher.Junction.AbstractBase<TypeDescription> {

  private final String name;

  public HasSuperTypeNamed(String name) {
    this.name = name;
  }

  @Override
  public boolean matches(TypeDescription type) {
    return type != null && reaches(type, new HashSet<>());
  }

  private boolean reaches(TypeDefinition type, Set<String> seen) {
    String typeName = type.asErasure().getName();
    if (typeName.equals(name)) {
      return true;
    }
    if (typeName.startsWith("java.") || !seen.add(typeName)) {
      return false;
    }
    TypeDefinition superClass;
    List<TypeDescription> interfaces;
    try {
      superClass = type.getSuperClass();
      interfaces = new ArrayList<>(type.getInterfaces().asErasures());
    } catch (RuntimeException unreadable) {
      return false;
    }
    if (superClass != null && reaches(superClass, seen)) {
      return true;
    }
    for (TypeDefinition implemented : interfaces) {
      if (reaches(implemented, seen)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "hasSuperTypeNamed(" + name + ")";
  }
}
