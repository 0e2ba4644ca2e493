package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The authorize hot path: results handed back as the caller's own string, UTF-16 input, the
 * system-clock shortcut, and lock-free calls racing with close.
 */
class AuthorizeFastPathTest {
  static Lease lease() {
    return Lease.builder()
        .allow("fs.read", "/data/**")
        .allow("net.fetch", "https://api.example.com/**")
        .allow("tool.call", "*")
        .allow("model.use", "claude-*", "m*")
        .allow("x-vendor.acme.run", "job:*")
        .build();
  }

  /** A string equal to {@code s} but not the same object (never an interned literal). */
  static String fresh(String s) {
    return new String(s.toCharArray());
  }

  @Test
  void aCanonicalTargetComesBackAsTheSameString() {
    try (LeaseGuard guard = LeaseGuard.of(lease())) {
      for (String[] c :
          new String[][] {
            {"fs.read", "/data/x/report.csv"},
            {"net.fetch", "https://api.example.com/v1/data"},
            {"tool.call", "search:web"},
            {"x-vendor.acme.run", "job:nightly"},
            {"fs.read", "/data/caf\u00e9/\u65e5\u672c/\uD83D\uDE00.txt"},
            {"fs.read", "/data/" + "a".repeat(300)},
            {"fs.read", "/data/" + "\u00e9".repeat(300)},
          }) {
        String target = fresh(c[1]);
        assertSame(target, guard.authorize(c[0], target), c[1]);
      }
      String model = fresh("claude-3-5-sonnet-20241022");
      assertSame(model, guard.authorizeModel(model));
    }
  }

  @Test
  void aNonCanonicalTargetComesBackAsANewCanonicalString() {
    try (LeaseGuard guard = LeaseGuard.of(lease())) {
      assertEquals("/data/y", guard.authorize("fs.read", fresh("/data//x/../y")));
      assertEquals("/data/x", guard.authorize("fs.read", fresh("/data/x/")));
      assertEquals(
          "https://api.example.com/v2",
          guard.authorize("net.fetch", fresh("HTTPS://API.example.com:443/v1/../v2")));
      // Non-ASCII and long targets take the other string paths.
      assertEquals(
          "/data/caf\u00e9/\uD83D\uDE00",
          guard.authorize("fs.read", "/data/./caf\u00e9//\uD83D\uDE00"));
      String longTarget = "/data/" + "b".repeat(400);
      assertEquals(longTarget, guard.authorize("fs.read", "/data/x/.." + longTarget.substring(5)));
      String longWide = "/data/" + "\u00e9".repeat(400);
      assertEquals(longWide, guard.authorize("fs.read", longWide + "/"));
      String given = fresh("/data/x/");
      assertNotSame(given, guard.authorize("fs.read", given));
    }
  }

  @Test
  void deniedAndMalformedTargetsStillThrow() {
    try (LeaseGuard guard = LeaseGuard.of(lease())) {
      assertThrows(PermissionDeniedException.class, () -> guard.authorize("fs.read", "/etc/x"));
      assertThrows(InvalidRequestException.class, () -> guard.authorize("fs.read", "relative"));
      assertThrows(InvalidRequestException.class, () -> guard.authorize("fs.read", ""));
      assertThrows(InvalidRequestException.class, () -> guard.authorize("fs.read", "/data/\u0000"));
      assertThrows(InvalidRequestException.class, () -> guard.authorize("acme.foo", "x"));
      assertThrows(
          PermissionDeniedException.class, () -> guard.authorize("x-vendor.acme.run", "x"));
      assertThrows(
          PermissionDeniedException.class, () -> guard.authorize("x-vendor.acme.other", "job:x"));
      assertThrows(InvalidRequestException.class, () -> guard.authorize("", "x"));
      assertThrows(PermissionDeniedException.class, () -> guard.authorizeModel("gpt-4"));
      assertThrows(NullPointerException.class, () -> guard.authorize("fs.read", null));
      assertThrows(NullPointerException.class, () -> guard.authorizeModel(null));
    }
  }

  /**
   * A lone surrogate is not valid UTF-16 and has no UTF-8 form: authorize refuses it with
   * InvalidRequestException (as the Python and Node bindings do), never authorizing a replaced
   * string.
   */
  @Test
  void aLoneSurrogateIsAnInvalidRequest() {
    try (LeaseGuard guard = LeaseGuard.of(lease())) {
      for (String[] c :
          new String[][] {
            {"fs.read", "/data/\uD800"},
            {"fs.read", "/data/a\uDC00b"},
            {"fs.read", "/data/\uD83D\uDE00\uD800"},
            {"fs.read", "/data/" + "a".repeat(300) + "\uD800"},
            {"tool.call", "x\uD800"},
            {"net.fetch", "https://api.example.com/\uD800"},
            {"fs.re\uD800", "/data/x"},
          }) {
        InvalidRequestException e =
            assertThrows(InvalidRequestException.class, () -> guard.authorize(c[0], c[1]), c[1]);
        assertTrue(e.getMessage().contains("lone surrogate"), e.getMessage());
      }
      assertThrows(InvalidRequestException.class, () -> guard.authorizeModel("m\uD800"));
      // a valid pair is text like any other
      assertEquals("/data/\uD83D\uDE00", guard.authorize("fs.read", "/data/\uD83D\uDE00"));
    }
  }

  @Test
  void onlyTheJdkSystemClockIsReadNatively() {
    assertTrue(LeaseGuard.readsSystemTime(Clock.systemUTC()));
    assertTrue(LeaseGuard.readsSystemTime(Clock.systemDefaultZone()));
    assertTrue(LeaseGuard.readsSystemTime(Clock.system(ZoneId.of("Asia/Tokyo"))));
    assertFalse(LeaseGuard.readsSystemTime(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC)));
    // Clock.offset(c, ZERO) is c itself.
    assertTrue(LeaseGuard.readsSystemTime(Clock.offset(Clock.systemUTC(), Duration.ZERO)));
    assertFalse(LeaseGuard.readsSystemTime(Clock.offset(Clock.systemUTC(), Duration.ofNanos(1))));
    assertFalse(LeaseGuard.readsSystemTime(Clock.tickMillis(ZoneOffset.UTC)));
    assertFalse(LeaseGuard.readsSystemTime(new ManualClock(Instant.EPOCH)));
  }

  @Test
  void theSystemClockGatesExpiry() {
    Lease past =
        Lease.builder().allow("fs.read", "/**").expiresAt(Instant.now().minusSeconds(1)).build();
    Lease future =
        Lease.builder().allow("fs.read", "/**").expiresAt(Instant.now().plusSeconds(3600)).build();
    for (Clock clock : new Clock[] {Clock.systemUTC(), Clock.systemDefaultZone()}) {
      try (LeaseGuard expired = LeaseGuard.builder(past).clock(clock).build();
          LeaseGuard live = LeaseGuard.builder(future).clock(clock).build()) {
        assertThrows(LeaseExpiredException.class, () -> expired.authorize("fs.read", "/x"));
        assertThrows(LeaseExpiredException.class, () -> expired.authorizeModel("m"));
        assertEquals("/x", live.authorize("fs.read", "/x"));
        // Grace is applied to the system time too.
        try (LeaseGuard graced =
            LeaseGuard.builder(past).clock(clock).grace(Duration.ofHours(1)).build()) {
          assertEquals("/x", graced.authorize("fs.read", "/x"));
        }
        // A child shares its parent's clock.
        try (LeaseGuard child =
            live.delegate(
                Lease.builder()
                    .allow("fs.read", "/a/**")
                    .expiresAt(Instant.now().plusSeconds(60))
                    .build())) {
          assertEquals("/a/b", child.authorize("fs.read", "/a/b"));
        }
      }
    }
  }

  @Test
  void aCustomClockIsStillTheOneThatGatesExpiry() {
    Instant deadline = Instant.now().plusSeconds(3600);
    Lease lease = Lease.builder().allow("fs.read", "/**").expiresAt(deadline).build();
    // An hour and a minute ahead: expired, though the system clock says otherwise.
    Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(61));
    try (LeaseGuard guard = LeaseGuard.builder(lease).clock(ahead).build()) {
      assertThrows(LeaseExpiredException.class, () -> guard.authorize("fs.read", "/x"));
      assertThrows(LeaseExpiredException.class, () -> guard.authorizeModel("m"));
    }
    // Fixed before the deadline: live, and it stays live whatever the system time does.
    Clock fixed = Clock.fixed(deadline.minusNanos(1), ZoneOffset.UTC);
    try (LeaseGuard guard = LeaseGuard.builder(lease).clock(fixed).build()) {
      assertEquals("/x", guard.authorize("fs.read", "/x"));
      try (LeaseGuard child = guard.delegate(Lease.builder().allow("fs.read", "/a/**").build())) {
        assertEquals("/a/x", child.authorize("fs.read", "/a/x"));
      }
    }
    ManualClock manual = new ManualClock(deadline);
    try (LeaseGuard guard = LeaseGuard.builder(lease).clock(manual).build()) {
      assertThrows(LeaseExpiredException.class, () -> guard.authorize("fs.read", "/x"));
      manual.set(deadline.minusSeconds(1));
      assertEquals("/x", guard.authorize("fs.read", "/x"));
    }
  }

  @Test
  void everyCallAfterCloseThrowsLeaseExpired() {
    LeaseGuard guard = LeaseGuard.of(lease());
    guard.close();
    assertThrows(LeaseExpiredException.class, () -> guard.authorize("fs.read", "/data/x"));
    assertThrows(LeaseExpiredException.class, () -> guard.authorizeModel("claude-3"));
    assertThrows(LeaseExpiredException.class, () -> guard.recordMetric("cost.x", "1", "USD"));
    assertThrows(LeaseExpiredException.class, guard::expiresAt);
    assertThrows(LeaseExpiredException.class, () -> guard.delegate(lease()));
    assertTrue(guard.closeAndReport().isEmpty());
  }

  /**
   * Calls take no lock: threads authorizing while another closes the guard each get either the
   * right answer or LeaseExpiredException, never anything else (and never a crash: the memory is
   * only freed once the guard is unreachable).
   */
  @Test
  void callsRacingWithCloseAnswerOrThrowLeaseExpired() throws Exception {
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 50; round++) {
        LeaseGuard guard = LeaseGuard.of(lease());
        CountDownLatch started = new CountDownLatch(threads);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          futures.add(
              pool.submit(
                  () -> {
                    started.countDown();
                    for (; ; ) {
                      try {
                        assertEquals("/data/x", guard.authorize("fs.read", "/data//x"));
                        assertEquals("claude-3", guard.authorizeModel("claude-3"));
                      } catch (LeaseExpiredException e) {
                        assertTrue(guard.isClosed());
                        return;
                      }
                    }
                  }));
        }
        started.await();
        guard.close();
        for (Future<?> f : futures) {
          f.get(30, TimeUnit.SECONDS);
        }
        assertThrows(LeaseExpiredException.class, () -> guard.authorize("fs.read", "/data/x"));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
