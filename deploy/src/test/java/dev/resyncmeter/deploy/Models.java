package dev.resyncmeter.deploy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitor;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Validates manifests against fabric8's typed Kubernetes and Prometheus Operator models (and cert-manager's
 * Certificate, {@link CertManager}, whose records reject unknown fields as they are read). The models
 * keep unknown fields in {@code additionalProperties} rather than failing, so every object read is
 * walked and any field kept there is reported; scalars are not coerced ("1" is no number).
 */
final class Models {

  static final Map<String, Class<?>> TYPES =
      Map.of(
          "v1/Namespace", Namespace.class,
          "v1/ServiceAccount", ServiceAccount.class,
          "v1/ConfigMap", ConfigMap.class,
          "v1/Secret", Secret.class,
          "apps/v1/Deployment", Deployment.class,
          "rbac.authorization.k8s.io/v1/ClusterRole", ClusterRole.class,
          "rbac.authorization.k8s.io/v1/ClusterRoleBinding", ClusterRoleBinding.class,
          "monitoring.coreos.com/v1/PodMonitor", PodMonitor.class,
          "monitoring.coreos.com/v1/PrometheusRule", PrometheusRule.class,
          // no fabric8 model of cert-manager is served here: CertManager is written from its CRD
          "cert-manager.io/v1/Certificate", CertManager.Certificate.class);

  private static final ObjectMapper STRICT =
      JsonMapper.builder()
          .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .build();

  private Models() {}

  static String typeOf(JsonNode object) {
    return object.path("apiVersion").asText() + "/" + object.path("kind").asText();
  }

  /** What is wrong with the object for its model: an empty list when nothing is. */
  static List<String> problems(JsonNode object) throws java.io.IOException {
    List<String> problems = new ArrayList<>();
    Class<?> type = TYPES.get(typeOf(object));
    if (type == null) {
      problems.add("no model for " + typeOf(object));
      return problems;
    }
    Object model;
    try {
      model = STRICT.treeToValue(object, type);
    } catch (JsonMappingException e) {
      String field = e.getPath().stream().map(r -> r.getFieldName() != null ? "." + r.getFieldName() : "[" + r.getIndex() + "]").collect(Collectors.joining());
      problems.add("bad value at " + object.path("kind").asText() + field + ": " + e.getOriginalMessage());
      return problems;
    }
    unknownFields(model, object.path("kind").asText(), problems);
    return problems;
  }

  private static void unknownFields(Object value, String path, List<String> problems) {
    if (value == null) {
      return;
    }
    if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        unknownFields(item, path + "[" + i++ + "]", problems);
      }
      return;
    }
    if (value instanceof Map<?, ?> map) {
      map.forEach((key, item) -> unknownFields(item, path + "." + key, problems));
      return;
    }
    if (value instanceof Record) {
      for (RecordComponent component : value.getClass().getRecordComponents()) {
        try {
          unknownFields(component.getAccessor().invoke(value), path + "." + component.getName(), problems);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(e);
        }
      }
      return;
    }
    if (!value.getClass().getName().startsWith("io.fabric8.")) {
      return;
    }
    for (Method getter : value.getClass().getMethods()) {
      if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers()) || !getter.getName().startsWith("get")
          || getter.getDeclaringClass() == Object.class) {
        continue;
      }
      Object field;
      try {
        field = getter.invoke(value);
      } catch (ReflectiveOperationException e) {
        continue;
      }
      String name = Character.toLowerCase(getter.getName().charAt(3)) + getter.getName().substring(4);
      if (name.equals("additionalProperties")) {
        ((Map<?, ?>) field).keySet().forEach(key -> problems.add("unknown field " + path + "." + key));
      } else {
        unknownFields(field, path + "." + name, problems);
      }
    }
  }
}
