package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link LeaseSubset} with {@link SubsetOptions}: each option is the core's rule of that name. */
class SubsetOptionsTest {
  static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  static Lease usd(String amount) {
    return Lease.builder().budget("USD", new BigDecimal(amount)).build();
  }

  static Lease eur(String amount) {
    return Lease.builder().budget("EUR", new BigDecimal(amount)).build();
  }

  @Test
  void theDefaultsAreLeasekitsOwnRules() {
    SubsetOptions d = SubsetOptions.defaults();
    // a currency the parent does not budget is unlimited there
    assertTrue(LeaseSubset.isSubset(eur("9"), usd("5"), null, d));
    // an omitted child expiry inherits the parent's
    Lease bounded = usd("5").withConstraints(LeaseConstraints.of(T0));
    assertTrue(LeaseSubset.isSubset(usd("1"), bounded, null, d));
    assertFalse(LeaseSubset.isSubset(usd("6"), usd("5"), null, d));
    assertFalse(LeaseSubset.isSubset(usd("2"), usd("5"), Map.of("USD", BigDecimal.ONE), d));
  }

  @Test
  void requireChildExpiry() {
    Lease bounded = usd("5").withConstraints(LeaseConstraints.of(T0));
    SubsetOptions o = SubsetOptions.defaults().requireChildExpiry(true);
    LeaseSubsetViolationException e =
        assertThrows(
            LeaseSubsetViolationException.class,
            () -> LeaseSubset.validate(usd("1"), bounded, null, o));
    assertEquals("expires_at", e.details().get("capability"));
    assertTrue(
        LeaseSubset.isSubset(usd("1").withConstraints(LeaseConstraints.of(T0)), bounded, null, o));
    assertTrue(LeaseSubset.isSubset(usd("1"), usd("5"), null, o));
  }

  @Test
  void strictRemaining() {
    SubsetOptions o = SubsetOptions.defaults().strictRemaining(true);
    Map<String, BigDecimal> rem = Map.of("EUR", BigDecimal.ONE);
    // an entry limits a currency the parent does not budget
    assertFalse(LeaseSubset.isSubset(eur("2"), usd("5"), rem, o));
    assertTrue(LeaseSubset.isSubset(eur("1"), usd("5"), rem, o));
    // a currency absent from the map has nothing left (zero still fits)
    assertFalse(LeaseSubset.isSubset(usd("1"), usd("5"), rem, o));
    assertTrue(LeaseSubset.isSubset(usd("0"), usd("5"), rem, o));
    // without a remaining map the option changes nothing
    assertTrue(LeaseSubset.isSubset(usd("1"), usd("5"), null, o));
  }

  @Test
  void requireParentCurrency() {
    SubsetOptions o = SubsetOptions.defaults().requireParentCurrency(true);
    for (String amount : new String[] {"1", "0"}) {
      LeaseSubsetViolationException e =
          assertThrows(
              LeaseSubsetViolationException.class,
              () -> LeaseSubset.validate(eur(amount), usd("5"), null, o));
      assertEquals("EUR", e.details().get("currency"));
    }
    assertTrue(LeaseSubset.isSubset(usd("0"), usd("5"), null, o));
    assertFalse(LeaseSubset.isSubset(usd("5.000000001"), usd("5"), null, o));
    // with strict remaining amounts, granted means listed there
    SubsetOptions strict = o.strictRemaining(true);
    Map<String, BigDecimal> rem = Map.of("EUR", BigDecimal.ZERO);
    assertTrue(LeaseSubset.isSubset(eur("0"), usd("5"), rem, strict));
    assertFalse(LeaseSubset.isSubset(usd("0"), usd("5"), rem, strict));
  }

  @Test
  void theOptionsAreImmutable() {
    SubsetOptions d = SubsetOptions.defaults();
    d.requireParentCurrency(true).requireChildExpiry(true).strictRemaining(true);
    assertTrue(LeaseSubset.isSubset(eur("1"), usd("5"), null, d));
    assertThrows(
        NullPointerException.class, () -> LeaseSubset.validate(usd("1"), usd("1"), null, null));
  }
}
