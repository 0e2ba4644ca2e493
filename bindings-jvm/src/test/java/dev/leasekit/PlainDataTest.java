package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.AbstractMap;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Plain data, the JVM side: a caller's Map is read once through {@code entrySet()} into plain data
 * (String keys, Collections of Strings, plain BigDecimals), so nothing but its entries reaches the
 * core, and a subclass that reports one thing to {@code get} and another to iteration, or a
 * BigDecimal subclass that lies about its text, cannot widen a lease.
 */
class PlainDataTest {
  @Test
  void propertiesDefaultsAreNotEntries() {
    Properties defaults = new Properties();
    defaults.put("fs.read", List.of("/**"));
    Properties props = new Properties(defaults);
    props.put("tool.call", List.of("web.*"));
    @SuppressWarnings("unchecked")
    Map<String, Collection<String>> map = (Map<String, Collection<String>>) (Map<?, ?>) props;
    Lease lease = Lease.of(map);
    assertEquals(Set.of("tool.call"), lease.capabilities());
    try (LeaseGuard guard = LeaseGuard.of(lease)) {
      assertThrows(
          PermissionDeniedException.class, () -> guard.authorize("fs.read", "/etc/shadow"));
    }
  }

  @Test
  void aMapIsReadOnceThroughItsEntries() {
    // get() says one thing; the entries say another: only the entries count, and only once.
    Map<String, List<String>> lying =
        new HashMap<>(Map.of("tool.call", List.of("web.*"))) {
          @Override
          public List<String> get(Object key) {
            return List.of("/**");
          }
        };
    assertEquals(Map.of("tool.call", List.of("web.*")), Lease.of(lying).asMap());
  }

  @Test
  void nonStringKeysAndPatternsAreRefused() {
    Map<Object, Object> raw = new LinkedHashMap<>();
    raw.put("fs.read", List.of(java.nio.file.Path.of("/etc")));
    @SuppressWarnings("unchecked")
    Map<String, Collection<String>> typed = (Map<String, Collection<String>>) (Map<?, ?>) raw;
    assertThrows(InvalidRequestException.class, () -> Lease.of(typed));
    Map<Object, Object> key = new LinkedHashMap<>();
    key.put(42, List.of("/a"));
    @SuppressWarnings("unchecked")
    Map<String, Collection<String>> typedKey = (Map<String, Collection<String>>) (Map<?, ?>) key;
    assertThrows(InvalidRequestException.class, () -> Lease.of(typedKey));
  }

  @Test
  void duplicateEntriesFromAStrangeMapAreRefused() {
    Map<String, List<String>> twice =
        new AbstractMap<>() {
          @Override
          public Set<Map.Entry<String, List<String>>> entrySet() {
            return new java.util.LinkedHashSet<>(
                List.of(
                    new SimpleEntry<>("fs.read", List.of("/a")),
                    new SimpleEntry<>("fs.read", List.of("/**"))));
          }
        };
    assertThrows(InvalidRequestException.class, () -> Lease.of(twice));
  }

  /** A BigDecimal that reports a larger amount as text than its value. */
  static final class LyingDecimal extends BigDecimal {
    LyingDecimal() {
      super("1");
    }

    @Override
    public String toPlainString() {
      return "1000000";
    }
  }

  @Test
  void bigDecimalSubclassesAreRefused() {
    Lease parent =
        Lease.builder().allow("tool.call", "x").budget("USD", new BigDecimal("5")).build();
    Lease big = Lease.builder().budget("USD", new BigDecimal("100")).build();
    assertThrows(
        InvalidRequestException.class,
        () -> LeaseSubset.isSubset(big, parent, Map.of("USD", new LyingDecimal())));
    assertFalse(LeaseSubset.isSubset(big, parent, Map.of("USD", BigDecimal.ONE)));
    assertThrows(
        InvalidRequestException.class,
        () -> Lease.builder().budget("USD", new LyingDecimal()).build());
    try (LeaseGuard guard = LeaseGuard.of(parent)) {
      assertThrows(InvalidRequestException.class, () -> guard.reserve("USD", new LyingDecimal()));
      assertThrows(
          InvalidRequestException.class,
          () -> guard.recordMetric("cost.llm", new LyingDecimal(), "USD"));
    }
  }
}
