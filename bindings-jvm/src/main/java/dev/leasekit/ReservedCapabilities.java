package dev.leasekit;

import java.util.HashMap;
import java.util.Map;

/**
 * The reserved capability names as the core lists them ({@code leasekit::RESERVED_CAPABILITIES},
 * read once from the native library), each with its index. {@link LeaseGuard#authorize} passes the
 * index of a reserved capability so that the native side need not copy the name out of the Java
 * string on every call; the core still receives exactly the same text.
 */
final class ReservedCapabilities {
  private static final Map<String, Integer> CODES = new HashMap<>();

  static {
    String[] names = Native.reservedCapabilities().split("\n", -1);
    for (int i = 0; i < names.length; i++) {
      CODES.put(names[i], i);
    }
  }

  private ReservedCapabilities() {}

  /**
   * The index of a reserved capability name, or -1 for any other string.
   *
   * @param capability a capability name
   * @return its code for {@code Native.guardAuthorize}
   */
  static int code(String capability) {
    Integer code = CODES.get(capability);
    return code == null ? -1 : code;
  }

  /**
   * The reserved names (for tests).
   *
   * @return an unmodifiable copy
   */
  static Map<String, Integer> codes() {
    return Map.copyOf(CODES);
  }
}
