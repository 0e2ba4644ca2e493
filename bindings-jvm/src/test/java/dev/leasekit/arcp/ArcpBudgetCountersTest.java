package dev.leasekit.arcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arcp.core.error.BudgetExhaustedException;
import dev.arcp.core.error.InvalidRequestException;
import dev.leasekit.ErrorCode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * {@link ArcpBudgetCounters}: the SDK's counter shape over leasekit's exact counters. "The SDK"
 * here is the test stand-ins of {@code dev.arcp.core.error} (the SDK is not published to a Maven
 * repository).
 */
class ArcpBudgetCountersTest {
  static BigDecimal d(String text) {
    return new BigDecimal(text);
  }

  @Test
  void theSdksMethodsOnExactDecimals() {
    ArcpBudgetCounters budget = new ArcpBudgetCounters(Map.of("USD", d("1.00"), "EUR", d("2")));
    assertTrue(budget.tracks("USD"));
    assertFalse(budget.tracks("GBP"));
    assertEquals(0, budget.remaining("GBP").signum());
    for (int i = 0; i < 3; i++) {
      budget.decrement("USD", d("0.1"));
    }
    // Exact: 1.00 - 3 x 0.1 is 0.70, not a binary-float neighbour.
    assertEquals(0, budget.remaining("USD").compareTo(d("0.70")));
    assertEquals(Map.of("EUR", d("2"), "USD", budget.remaining("USD")), budget.snapshot());
    budget.ensureAllPositive();
  }

  @Test
  void aNegativeDecrementAndAnUntrackedCurrencyChangeNothing() {
    ArcpBudgetCounters budget = new ArcpBudgetCounters(Map.of("USD", d("1")));
    budget.decrement("USD", d("-5"));
    budget.decrement("GBP", d("5"));
    assertEquals(Map.of("USD", d("1")), budget.snapshot());
  }

  @Test
  void exhaustionThrowsTheSdksException() {
    ArcpBudgetCounters budget = new ArcpBudgetCounters(Map.of("USD", d("1")));
    budget.decrement("USD", d("1.5"));
    assertEquals(0, budget.remaining("USD").compareTo(d("-0.5")));
    BudgetExhaustedException e =
        assertThrows(BudgetExhaustedException.class, budget::ensureAllPositive);
    assertFalse(e.retryable());
    assertEquals("USD", ArcpErrors.leasekitException(e).orElseThrow().details().get("currency"));
    // A zero starting amount is exhausted too (the SDK's rule: at or below zero).
    assertThrows(
        BudgetExhaustedException.class,
        () -> new ArcpBudgetCounters(Map.of("USD", d("0"))).ensureAllPositive());
    new ArcpBudgetCounters(Map.of()).ensureAllPositive();
  }

  @Test
  void exponentFormsAreReadAsTheirExactValue() {
    // BigDecimal("1E+2") is 100 and "1E-3" is 0.001: the text crossing to the core is plain.
    ArcpBudgetCounters budget = new ArcpBudgetCounters(Map.of("USD", d("1E+2")));
    assertEquals(0, budget.remaining("USD").compareTo(d("100")));
    budget.decrement("USD", d("1E-3"));
    assertEquals(0, budget.remaining("USD").compareTo(d("99.999")));
    // A scale left by a computation is not precision: 0.1000000000 is 0.1.
    budget.decrement("USD", d("0.1000000000"));
    assertEquals(0, budget.remaining("USD").compareTo(d("99.899")));
    assertEquals(
        0,
        new ArcpBudgetCounters(Map.of("USD", d("2.0000000000")))
            .remaining("USD")
            .compareTo(d("2")));
  }

  @Test
  void amountsOutsideLeasekitsBoundsAreInvalidRequests() {
    ArcpBudgetCounters budget = new ArcpBudgetCounters(Map.of("USD", d("1")));
    // The SDK accepts any BigDecimal; leasekit keeps at most 9 fraction and 15 integer digits.
    assertThrows(InvalidRequestException.class, () -> budget.decrement("USD", d("0.0000000001")));
    assertThrows(
        InvalidRequestException.class, () -> budget.decrement("USD", d("1000000000000000")));
    assertThrows(
        InvalidRequestException.class, () -> new ArcpBudgetCounters(Map.of("USD", d("-1"))));
    assertThrows(
        InvalidRequestException.class, () -> new ArcpBudgetCounters(Map.of("US D", d("1"))));
    assertEquals(Map.of("USD", d("1")), budget.snapshot());
  }

  /** A BigDecimal that claims to be negative, so that a spend would be skipped. */
  static final class Lying extends BigDecimal {
    private static final long serialVersionUID = 1L;

    Lying() {
      super(BigInteger.valueOf(5));
    }

    @Override
    public int signum() {
      return -1;
    }
  }

  @Test
  void aBigDecimalSubclassIsRefused() {
    ArcpBudgetCounters budget = new ArcpBudgetCounters(Map.of("USD", d("1")));
    InvalidRequestException e =
        assertThrows(InvalidRequestException.class, () -> budget.decrement("USD", new Lying()));
    assertEquals(ErrorCode.INVALID_REQUEST, ArcpErrors.leasekitException(e).orElseThrow().code());
    assertEquals(Map.of("USD", d("1")), budget.snapshot());
  }

  @Test
  void withoutTheSdkLeasekitsExceptionsAreThrown() {
    ArcpBudgetCounters budget = new ArcpBudgetCounters(Map.of("USD", d("1")), SdkLoaders.absent());
    budget.decrement("USD", d("1"));
    dev.leasekit.BudgetExhaustedException e =
        assertThrows(dev.leasekit.BudgetExhaustedException.class, budget::ensureAllPositive);
    assertEquals(ErrorCode.BUDGET_EXHAUSTED, e.code());
    assertFalse(e.retryable());
    assertThrows(
        dev.leasekit.InvalidRequestException.class,
        () -> budget.decrement("USD", d("0.0000000001")));
  }

  @Test
  void concurrentDecrementsLoseNothing() throws Exception {
    ArcpBudgetCounters budget = new ArcpBudgetCounters(Map.of("USD", d("100")));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 250; i++) {
                    budget.decrement("USD", d("0.01"));
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(0, budget.remaining("USD").compareTo(d("90")));
  }
}
