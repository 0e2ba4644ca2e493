package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NarrowingTest {
  @Test
  void narrowKeepsOnlyWhatTheCeilingGrants() {
    Instant early = Instant.parse("2030-01-01T00:00:00Z");
    Lease requested =
        Lease.builder()
            .allow("fs.read", "/data/**")
            .allow("net.fetch", "https://**")
            .budget("USD", new BigDecimal("20"))
            .expiresAt(early.plusSeconds(10))
            .build();
    Lease ceiling =
        Lease.builder()
            .allow("fs.read", "/data/public/**")
            .budget("USD", new BigDecimal("5"))
            .expiresAt(early)
            .build();
    Narrowing.Narrowed narrowed = Narrowing.narrow(requested, ceiling);
    Lease lease = narrowed.lease();
    assertEquals(Set.of("fs.read", "cost.budget"), lease.capabilities());
    assertEquals(List.of("/data/public/**"), lease.patterns("fs.read").orElseThrow());
    assertEquals(0, new BigDecimal("5").compareTo(lease.budget().get("USD")));
    assertEquals(early, lease.expiresAt().orElseThrow());
    assertFalse(narrowed.reductions().isEmpty());
    assertTrue(LeaseSubset.isSubset(lease, requested.withConstraints(LeaseConstraints.none())));
    assertTrue(LeaseSubset.isSubset(lease, ceiling));
  }

  @Test
  void budgetHelpers() {
    BudgetCounters.BudgetEntry e = BudgetCounters.parseEntry("USD:2.50");
    assertEquals("USD", e.currency());
    assertEquals(0, new BigDecimal("2.5").compareTo(e.amount()));
    assertEquals(
        0,
        new BigDecimal("3.75")
            .compareTo(BudgetCounters.sum(List.of("USD:1.25", "USD:2.5", "EUR:1")).get("USD")));
    assertEquals(0, new BigDecimal("0.3").compareTo(BudgetCounters.parseAmount("0.30")));
  }
}
