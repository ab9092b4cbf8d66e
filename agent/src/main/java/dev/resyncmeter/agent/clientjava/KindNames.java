package dev.resyncmeter.agent.clientjava;

import java.util.regex.Pattern;

/**
 * The Kubernetes kind of a client-java model class, from the informer's type: list items carry no
 * kind before client-java 27, so the object cannot tell. Generated models are named
 * {@code V1ConfigMap}, {@code V1beta1CronJob}: the version prefix goes, the kind stays.
 */
public final class KindNames {

  private static final Pattern VERSION_PREFIX = Pattern.compile("^V\\d+(?:(?:alpha|beta)\\d+)?(?=[A-Z])");

  private KindNames() {}

  public static String of(Class<?> apiType) {
    if (apiType == null) {
      return "unknown";
    }
    return VERSION_PREFIX.matcher(apiType.getSimpleName()).replaceFirst("");
  }
}
