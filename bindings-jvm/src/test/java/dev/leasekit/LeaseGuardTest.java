package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LeaseGuardTest {
  static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  static Lease guideLease() {
    return Lease.builder()
        .allow("fs.read", "/data/**")
        .allow("fs.write", "/tmp/**")
        .allow("net.fetch", "https://api.example.com/**")
        .allow("tool.call", "search:*")
        .allow("agent.delegate", "summarise@*")
        .allow("model.use", "claude-*", "gpt-4*")
        .build();
  }

  @Test
  void authorizeFollowsTheGuide() {
    try (LeaseGuard guard = LeaseGuard.of(guideLease())) {
      assertEquals(
          "https://api.example.com/data",
          guard.authorize("net.fetch", "https://api.example.com/data"));
      PermissionDeniedException denied =
          assertThrows(
              PermissionDeniedException.class,
              () -> guard.authorize("net.fetch", "https://evil.com/"));
      assertFalse(denied.retryable());
      assertEquals("/tmp/output.json", guard.authorize("fs.write", "/tmp//x/../output.json"));
      assertEquals(
          "claude-3-5-sonnet-20241022", guard.authorizeModel("claude-3-5-sonnet-20241022"));
      assertThrows(PermissionDeniedException.class, () -> guard.authorizeModel("llama3"));
      assertThrows(
          PermissionDeniedException.class, () -> guard.authorize("fs.read", "/etc/passwd"));
      assertThrows(InvalidRequestException.class, () -> guard.authorize("acme.foo", "x"));
      assertThrows(InvalidRequestException.class, () -> guard.authorize("fs.read", "relative"));
    }
  }

  @Test
  void modelUseAbsentIsDeniedUnlessAllowed() {
    Lease lease = Lease.builder().allow("fs.read", "/**").build();
    try (LeaseGuard strict = LeaseGuard.of(lease);
        LeaseGuard open = LeaseGuard.builder(lease).allowAnyModel(true).build()) {
      assertThrows(PermissionDeniedException.class, () -> strict.authorizeModel("gpt-4"));
      assertEquals("gpt-4", open.authorizeModel("gpt-4"));
    }
  }

  @Test
  void expiryUsesTheInjectedClock() {
    ManualClock clock = new ManualClock(T0);
    Lease lease = Lease.builder().allow("fs.read", "/**").expiresAt(T0.plusSeconds(60)).build();
    try (LeaseGuard guard = LeaseGuard.builder(lease).clock(clock).build()) {
      assertEquals("/x", guard.authorize("fs.read", "/x"));
      clock.set(T0.plusSeconds(60).minusNanos(1));
      assertEquals("/x", guard.authorize("fs.read", "/x"));
      clock.set(T0.plusSeconds(60));
      assertThrows(LeaseExpiredException.class, () -> guard.authorize("fs.read", "/x"));
      // Expiry is checked before permissions.
      assertThrows(LeaseExpiredException.class, () -> guard.authorize("fs.read", "relative"));
      assertEquals(T0.plusSeconds(60), guard.expiresAt().orElseThrow());
    }
  }

  @Test
  void graceExtendsTheDeadline() {
    ManualClock clock = new ManualClock(T0.plusSeconds(61));
    Lease lease = Lease.builder().allow("fs.read", "/**").expiresAt(T0.plusSeconds(60)).build();
    try (LeaseGuard guard =
        LeaseGuard.builder(lease).clock(clock).grace(Duration.ofSeconds(5)).build()) {
      assertEquals("/x", guard.authorize("fs.read", "/x"));
      clock.set(T0.plusSeconds(65));
      assertThrows(LeaseExpiredException.class, () -> guard.authorize("fs.read", "/x"));
    }
    assertThrows(
        InvalidRequestException.class,
        () -> LeaseGuard.builder(lease).grace(Duration.ofMillis(-1)));
  }

  @Test
  void budgetsAreExactAndExhaust() {
    Lease lease =
        Lease.builder().allow("tool.call", "*").budget("USD", new BigDecimal("1.00")).build();
    try (LeaseGuard guard = LeaseGuard.of(lease)) {
      BudgetCounters budget = guard.budget();
      for (int i = 0; i < 3; i++) {
        budget.spend("cost.llm", new BigDecimal("0.1"), "USD");
      }
      assertEquals(0, new BigDecimal("0.7").compareTo(budget.remaining("USD").orElseThrow()));
      // Other metrics and currencies are ignored.
      assertTrue(guard.recordMetric("tokens", "not a number", "USD").isEmpty());
      guard.recordMetric("cost.llm", new BigDecimal("5"), "EUR");
      assertEquals(0, new BigDecimal("0.7").compareTo(budget.remaining("USD").orElseThrow()));
      assertThrows(
          InvalidRequestException.class, () -> guard.recordMetric("cost.llm", "-1", "USD"));
      assertThrows(
          InvalidRequestException.class, () -> guard.recordMetric("cost.llm", "1e2", "USD"));
      assertThrows(
          BudgetExhaustedException.class, () -> budget.reserve("USD", new BigDecimal("0.71")));
      budget.reserve("USD", new BigDecimal("0.70"));
      assertTrue(budget.isExhausted());
      assertThrows(BudgetExhaustedException.class, () -> guard.authorize("tool.call", "x"));
      assertThrows(InvalidRequestException.class, () -> budget.reserve("EUR", BigDecimal.ONE));
      List<Metric> emitted = guard.recordMetric("cost.llm", new BigDecimal("0.25"), "USD");
      assertEquals(0, new BigDecimal("-0.25").compareTo(budget.remaining("USD").orElseThrow()));
      assertTrue(emitted.isEmpty(), "the <= 0 step was already emitted: " + emitted);
    }
  }

  @Test
  void remainingMetricsAreEmittedAtFivePercentSteps() {
    Lease lease = Lease.builder().budget("USD", new BigDecimal("100")).build();
    try (LeaseGuard guard = LeaseGuard.of(lease)) {
      assertTrue(guard.recordMetric("cost.x", new BigDecimal("4.99"), "USD").isEmpty());
      List<Metric> at5 = guard.recordMetric("cost.x", new BigDecimal("0.01"), "USD");
      assertEquals(1, at5.size());
      assertEquals("cost.budget.remaining", at5.get(0).name());
      assertEquals("USD", at5.get(0).unit());
      assertEquals(0, new BigDecimal("95").compareTo(at5.get(0).value()));
      List<Metric> jump = guard.recordMetric("cost.x", new BigDecimal("20"), "USD");
      assertEquals(1, jump.size());
      assertEquals(0, new BigDecimal("75").compareTo(jump.get(0).value()));
    }
  }

  @Test
  void concurrentSpendersNeverLoseAnUpdate() throws Exception {
    Lease lease = Lease.builder().budget("USD", new BigDecimal("1000")).build();
    try (LeaseGuard guard = LeaseGuard.of(lease)) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 500; i++) {
                    guard.recordMetric("cost.call", new BigDecimal("0.01"), "USD");
                  }
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      pool.shutdown();
      assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
      assertEquals(0, new BigDecimal("960").compareTo(guard.remaining().get("USD")));
    }
  }

  @Test
  void closedGuardsRefuseCallsAndCloseIsIdempotent() {
    LeaseGuard guard = LeaseGuard.of(guideLease());
    assertFalse(guard.isClosed());
    guard.close();
    assertTrue(guard.isClosed());
    guard.close();
    assertTrue(guard.closeAndReport().isEmpty());
    assertThrows(LeaseExpiredException.class, () -> guard.authorize("fs.read", "/data/x"));
    assertThrows(LeaseExpiredException.class, guard::remaining);
  }

  @Test
  void unclosedGuardsAreFreedByTheCleaner() throws Exception {
    long before = NativeHandle.LIVE.get();
    for (int i = 0; i < 2_000; i++) {
      LeaseGuard.of(guideLease()).authorize("tool.call", "search:web");
    }
    assertTrue(NativeHandle.LIVE.get() > before, "guards are live until collected");
    assertCleanerFreed(before, "dropped");
    try (LeaseGuard guard = LeaseGuard.of(guideLease())) {
      assertEquals("search:web", guard.authorize("tool.call", "search:web"));
    }
  }

  /**
   * close() runs the core close at once but leaves the memory to the Cleaner (see NativeHandle):
   * closed guards that become unreachable are freed.
   */
  @Test
  void closedGuardsAreFreedByTheCleanerOnceUnreachable() throws Exception {
    long before = NativeHandle.LIVE.get();
    for (int i = 0; i < 2_000; i++) {
      LeaseGuard guard = LeaseGuard.of(guideLease());
      guard.close();
      assertTrue(guard.isClosed());
    }
    assertCleanerFreed(before, "closed");
  }

  /** Collects until at most 100 handles above {@code before} are live (20 s at most). */
  private static void assertCleanerFreed(long before, String which) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (NativeHandle.LIVE.get() > before + 100 && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(20);
    }
    assertTrue(
        NativeHandle.LIVE.get() <= before + 100,
        "the cleaner freed " + which + " guards: live " + NativeHandle.LIVE.get());
  }
}
