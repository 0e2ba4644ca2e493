package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code conformance/surface.json} (the surface manifest) agrees with the Java API: every Java name
 * it gives ({@code Class#method}, nested classes as {@code Outer.Inner}) is a public method of a
 * public class of {@code dev.leasekit}, and every entry has a Java value of a known form.
 */
class SurfaceTest {
  static JsonNode manifest() throws IOException {
    String path = System.getProperty("leasekit.surface", "../conformance/surface.json");
    return Json.MAPPER.readTree(Path.of(path).toFile());
  }

  /** The checked names of a language value ({@code not_exposed} and {@code pending}: none). */
  static List<String> names(JsonNode value, JsonNode entry) {
    List<String> out = new ArrayList<>();
    if (value.isTextual()) {
      out.add(value.asText());
    } else if (value.isArray()) {
      for (JsonNode n : value) {
        assertTrue(n.isTextual(), "a name must be a string: " + entry);
        out.add(n.asText());
      }
    } else if (value.isObject() && value.has("not_exposed")) {
      assertFalse(value.path("not_exposed").asText().isBlank(), "not_exposed needs a reason");
    } else if (value.isObject() && value.has("pending")) {
      assertTrue(value.path("pending").isArray(), "pending is a list: " + entry);
    } else {
      throw new AssertionError(
          "a language value is a name, a list, not_exposed or pending: " + entry);
    }
    return out;
  }

  /** Whether {@code Class#method} names a public method of a public class of the package. */
  static boolean exists(String name) {
    int hash = name.indexOf('#');
    if (hash <= 0 || hash == name.length() - 1) {
      throw new AssertionError("a Java name is Class#method: " + name);
    }
    String binary = "dev.leasekit." + name.substring(0, hash).replace('.', '$');
    String method = name.substring(hash + 1);
    Class<?> cls;
    try {
      cls = Class.forName(binary, false, SurfaceTest.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      return false;
    }
    if (!Modifier.isPublic(cls.getModifiers())) {
      return false;
    }
    return Arrays.stream(cls.getMethods())
        .filter(m -> Modifier.isPublic(m.getModifiers()))
        .map(Method::getName)
        .anyMatch(method::equals);
  }

  @Test
  void everyJavaNameInTheManifestExists() throws IOException {
    JsonNode entries = manifest().path("entries");
    assertTrue(entries.size() > 50, "the manifest lists " + entries.size() + " entries");
    List<String> missing = new ArrayList<>();
    int checked = 0;
    for (JsonNode entry : entries) {
      for (String lang : List.of("rust", "c", "python", "node", "java")) {
        assertTrue(entry.has(lang), "entry without " + lang + ": " + entry);
      }
      for (String name : names(entry.path("java"), entry)) {
        checked++;
        if (!exists(name)) {
          missing.add(name);
        }
      }
    }
    assertEquals(List.of(), missing, "in surface.json but not in the Java API");
    assertTrue(checked > 80, "checked only " + checked + " Java names");
  }

  @Test
  void theNameCheckCanFail() {
    assertTrue(exists("Agentfile#packageDigest"));
    assertTrue(exists("LeaseGuard.Builder#clock"));
    assertTrue(exists("Governor#acquire"));
    assertFalse(exists("Agentfile#noSuchMethod"));
    assertFalse(exists("NoSuchClass#parse"));
    // Native is package-private: not part of the surface.
    assertFalse(exists("Native#agentfileParse"));
  }

  @Test
  void everyAgentfileFunctionIsExposedInJava() throws IOException {
    int agentfile = 0;
    for (JsonNode entry : manifest().path("entries")) {
      if (entry.path("concept").asText().equals("Agentfile")) {
        agentfile++;
        assertFalse(names(entry.path("java"), entry).isEmpty(), "Java lacks " + entry);
      }
    }
    assertEquals(10, agentfile, "the nine Agentfile functions and the parsed file's JSON");
  }
}
