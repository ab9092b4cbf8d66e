package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The Kubernetes verb of a request, as the API server would name it. */
class ApiVerbTest {

  @ParameterizedTest(name = "{0} {1} watch={2} is {3}")
  @CsvSource({
    "GET, /api/v1/namespaces/default/configmaps/cm-1, false, get",
    "GET, /api/v1/namespaces/default/configmaps, false, list",
    "GET, /api/v1/configmaps, false, list",
    "GET, /api/v1/configmaps, true, watch",
    "GET, /api/v1/watch/namespaces/default/configmaps, false, watch",
    "GET, /apis/apps/v1/watch/deployments, false, watch",
    "GET, /apis/apps/v1/namespaces/ns/deployments/web, false, get",
    "GET, /apis/apps/v1/namespaces/ns/deployments/web/status, false, get",
    "GET, /apis/example.com/v1/widgets, false, list",
    "GET, /api/v1/namespaces, false, list",
    "GET, /api/v1/namespaces/default, false, get",
    "PUT, /api/v1/namespaces/default/finalize, false, update",
    "GET, /api/v1/nodes/node-1, false, get",
    "GET, /version, false, get",
    "GET, /apis, false, get",
    "GET, /apis/apps/v1, false, get",
    "POST, /api/v1/namespaces/default/configmaps, false, create",
    "POST, /api/v1/namespaces/default/pods/p/eviction, false, create",
    "PUT, /api/v1/namespaces/default/configmaps/cm-1, false, update",
    "patch, /apis/apps/v1/namespaces/ns/deployments/web/scale, false, patch",
    "DELETE, /api/v1/namespaces/default/configmaps/cm-1, false, delete",
    "DELETE, /api/v1/namespaces/default/configmaps, false, deletecollection",
    "DELETE, /apis/example.com/v1/namespaces/ns/widgets/, false, deletecollection",
  })
  void isDerivedFromTheMethodAndWhetherThePathNamesOneObject(String method, String path, boolean watch, String verb) {
    assertThat(ApiVerb.of(method, path, watch).label()).isEqualTo(verb);
    String url = "https://10.0.0.1:6443" + path + (watch ? "?resourceVersion=7&watch=true" : "?resourceVersion=7&watcher=true");
    assertThat(ApiVerb.ofUrl(method, url).label()).as(url).isEqualTo(verb);
  }

  @ParameterizedTest(name = "{0} {1} is {2}")
  @CsvSource({
    "GET, http://127.0.0.1:8080/api/v1/configmaps?watch=1, watch",
    "GET, http://127.0.0.1:8080/api/v1/configmaps?watch=1#x, watch",
    "GET, http://127.0.0.1:8080/api/v1/configmaps#watch=true, list",
    "GET, http://127.0.0.1:8080/api/v1/configmaps?watch=false, list",
    "GET, http://127.0.0.1:8080, get",
  })
  void aWholeUrlIsReadForItsPathAndItsQueryOnly(String method, String url, String verb) {
    assertThat(ApiVerb.ofUrl(method, url).label()).isEqualTo(verb);
  }
}
