package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Delegation enforces the subset relation (the bug of the Java SDK, seed 002). */
class DelegationTest {
  static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  static Lease parent() {
    return Lease.builder()
        .allow("fs.read", "/a/*")
        .allow("model.use", "gpt-4*")
        .allow("tool.call", "search:*")
        .budget("USD", new BigDecimal("10"))
        .expiresAt(T0.plusSeconds(3600))
        .build();
  }

  @Test
  void subsetChecksAreExact() {
    Lease parent = parent();
    assertTrue(
        LeaseSubset.isSubset(Lease.builder().allow("model.use", "gpt-4o-mini").build(), parent));
    assertFalse(LeaseSubset.isSubset(Lease.builder().allow("fs.read", "/a/**").build(), parent));
    assertFalse(LeaseSubset.isSubset(Lease.builder().allow("fs.read", "/a/b**").build(), parent));
    assertTrue(LeaseSubset.isSubset(parent, parent));
    LeaseSubsetViolationException v =
        assertThrows(
            LeaseSubsetViolationException.class,
            () -> LeaseSubset.validate(Lease.builder().allow("fs.read", "/a/**").build(), parent));
    assertEquals("fs.read", v.capability().orElseThrow());
    assertEquals("/a/**", v.pattern().orElseThrow());
    String witness = v.witness().orElseThrow();
    assertTrue(Capabilities.matchPattern("fs.read", "/a/**", witness) || witness.startsWith("/a/"));
  }

  @Test
  void budgetsAreNumbersNotGlobs() {
    Lease parent = parent();
    Lease nine = Lease.builder().budget("USD", new BigDecimal("9.99")).build();
    Lease eleven = Lease.builder().budget("USD", new BigDecimal("11")).build();
    assertTrue(LeaseSubset.isSubset(nine, parent));
    assertFalse(LeaseSubset.isSubset(eleven, parent));
    assertFalse(LeaseSubset.isSubset(nine, parent, Map.of("USD", new BigDecimal("5"))));
    assertTrue(
        LeaseSubset.isSubset(Lease.builder().budget("EUR", new BigDecimal("99")).build(), parent));
  }

  @Test
  void parentRemainingFollowsTheOneWireRule() {
    // Caller-given amounts: signed (remaining() after an overspend round-trips), at most 9
    // fraction digits (core's leasekit::wire::Amounts).
    Lease parent =
        Lease.builder().allow("tool.call", "x").budget("USD", new BigDecimal("5")).build();
    try (LeaseGuard guard = LeaseGuard.of(parent)) {
      guard.recordMetric("cost.llm", new BigDecimal("7.25"), "USD");
      Map<String, BigDecimal> remaining = guard.remaining();
      assertEquals(0, new BigDecimal("-2.25").compareTo(remaining.get("USD")));
      Lease zero = Lease.builder().budget("USD", BigDecimal.ZERO).build();
      assertFalse(LeaseSubset.isSubset(zero, parent, remaining));
      assertTrue(
          LeaseSubset.isSubset(
              Lease.builder().allow("tool.call", "x").build(),
              parent,
              Map.of("USD", new BigDecimal("-1"))));
      assertTrue(LeaseSubset.isSubset(zero, parent, Map.of("USD", new BigDecimal("1.000000000"))));
      assertThrows(
          InvalidRequestException.class,
          () -> LeaseSubset.isSubset(zero, parent, Map.of("USD", new BigDecimal("1.0000000000"))));
    }
  }

  @Test
  void expiryMustNotOutliveTheParent() {
    Lease parent = parent();
    Lease later =
        Lease.builder().allow("tool.call", "search:web").expiresAt(T0.plusSeconds(7200)).build();
    Lease earlier =
        Lease.builder().allow("tool.call", "search:web").expiresAt(T0.plusSeconds(60)).build();
    assertFalse(LeaseSubset.isSubset(later, parent));
    assertTrue(LeaseSubset.isSubset(earlier, parent));
    assertThrows(LeaseSubsetViolationException.class, () -> LeaseSubset.validate(later, parent));
  }

  @Test
  void delegateRejectsViolationsAndEnforcesTheChild() {
    ManualClock clock = new ManualClock(T0);
    try (LeaseGuard guard = LeaseGuard.builder(parent()).clock(clock).build()) {
      assertThrows(
          LeaseSubsetViolationException.class,
          () -> guard.delegate(Lease.builder().allow("fs.read", "/a/**").build()));
      assertThrows(
          LeaseSubsetViolationException.class,
          () -> guard.delegate(Lease.builder().allow("net.fetch", "https://x.example/**").build()));
      try (LeaseGuard child =
          guard.delegate(
              Lease.builder()
                  .allow("model.use", "gpt-4o*")
                  .budget("USD", new BigDecimal("4"))
                  .build())) {
        assertEquals("gpt-4o-mini", child.authorizeModel("gpt-4o-mini"));
        assertThrows(PermissionDeniedException.class, () -> child.authorizeModel("gpt-4.1"));
        assertThrows(PermissionDeniedException.class, () -> child.authorize("fs.read", "/a/x"));
        // The child inherits the parent's deadline.
        assertEquals(T0.plusSeconds(3600), child.expiresAt().orElseThrow());
        // The child's budget is reserved from the parent at once.
        assertEquals(0, new BigDecimal("6").compareTo(guard.remaining().get("USD")));
        child.recordMetric("cost.llm", new BigDecimal("1.5"), "USD");
        assertEquals(0, new BigDecimal("2.5").compareTo(child.remaining().get("USD")));
        // A second child cannot take more than what is left.
        assertThrows(
            LeaseSubsetViolationException.class,
            () -> guard.delegate(Lease.builder().budget("USD", new BigDecimal("7")).build()));
      }
      // Closing the child returned its unspent 2.5.
      assertEquals(0, new BigDecimal("8.5").compareTo(guard.remaining().get("USD")));
      clock.set(T0.plusSeconds(3600));
      assertThrows(LeaseExpiredException.class, () -> guard.authorize("tool.call", "search:x"));
    }
  }

  @Test
  void childWithoutBudgetSharesTheParentsCounters() {
    try (LeaseGuard guard = LeaseGuard.of(parent().withConstraints(LeaseConstraints.none()))) {
      try (LeaseGuard child =
          guard.delegate(Lease.builder().allow("tool.call", "search:web").build())) {
        child.recordMetric("cost.llm", new BigDecimal("10"), "USD");
        assertThrows(
            BudgetExhaustedException.class, () -> guard.authorize("tool.call", "search:x"));
        assertThrows(
            BudgetExhaustedException.class, () -> child.authorize("tool.call", "search:web"));
      }
      assertDoesNotThrow(() -> guard.remaining());
    }
  }
}
