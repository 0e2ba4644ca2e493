package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code native} method of {@link Native} has its JNI export in the crate ({@code
 * #[jni_mangle("dev.leasekit.Native")]} on a function of {@code bindings-jvm/src/*.rs}, whose
 * snake_case name jni_mangle turns into the lowerCamelCase Java name), and every export has its
 * {@code native} method: a missing one would only fail at the first call, with {@code
 * UnsatisfiedLinkError}.
 */
class NativeExportsTest {
  private static final Pattern EXPORT =
      Pattern.compile(
          "#\\[jni_mangle\\(\"dev\\.leasekit\\.Native\"(?:,\\s*\"(\\w+)\")?\\)\\]\\s*"
              + "(?:#\\[[^\\]]*\\]\\s*)*pub\\s+(?:unsafe\\s+)?(?:extern\\s+\"system\"\\s+)?fn\\s+(\\w+)");

  /** jni_mangle's rule for a snake_case name without capitals or digits: lowerCamelCase. */
  static String lowerCamel(String snake) {
    String[] parts = snake.split("_");
    StringBuilder out = new StringBuilder(parts[0]);
    for (int i = 1; i < parts.length; i++) {
      out.append(Character.toUpperCase(parts[i].charAt(0))).append(parts[i].substring(1));
    }
    return out.toString();
  }

  static List<String> exports() throws IOException {
    Path dir = Path.of(System.getProperty("leasekit.jni.sources", "src"));
    List<String> names = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(p -> p.toString().endsWith(".rs")).sorted().toList()) {
        Matcher m = EXPORT.matcher(Files.readString(file));
        while (m.find()) {
          names.add(m.group(1) != null ? m.group(1) : lowerCamel(m.group(2)));
        }
      }
    }
    return names;
  }

  @Test
  void nativeMethodsEqualTheJniExports() throws IOException {
    List<String> natives =
        Arrays.stream(Native.class.getDeclaredMethods())
            .filter(m -> Modifier.isNative(m.getModifiers()))
            .map(Method::getName)
            .toList();
    List<String> exported = exports();
    assertTrue(natives.size() > 40, "native methods found: " + natives.size());
    // Short JNI names only: an overloaded native would need the long (signature) form.
    assertEquals(natives.size(), new TreeSet<>(natives).size(), "overloaded native method");
    assertEquals(exported.size(), new TreeSet<>(exported).size(), "an export appears twice");
    Set<String> missingExport = new TreeSet<>(natives);
    exported.forEach(missingExport::remove);
    Set<String> missingNative = new TreeSet<>(exported);
    natives.forEach(missingNative::remove);
    assertEquals(Set.of(), missingExport, "native methods without a JNI export");
    assertEquals(Set.of(), missingNative, "JNI exports without a native method");
  }

  @Test
  void theNameRuleIsJniMangles() {
    assertEquals("isValidCapabilityName", lowerCamel("is_valid_capability_name"));
    assertEquals("free", lowerCamel("free"));
    Matcher m =
        EXPORT.matcher(
            "#[jni_mangle(\"dev.leasekit.Native\")]\n#[allow(clippy::too_many_arguments)]\n"
                + "pub fn guard_new<'local>(");
    assertTrue(m.find());
    assertEquals("guard_new", m.group(2));
  }
}
