package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link GovernorClient} against a real {@code leasekit serve} process (the CLI binary named by the
 * system property {@code leasekit.cli.path}, built by scripts/test-jvm.sh), started here on a fresh
 * socket and state directory and stopped with SIGTERM afterwards.
 */
class GovernorClientTest {
  static Path dir;
  static Path socket;
  static Process daemon;

  static Path cliPath() {
    String prop = System.getProperty("leasekit.cli.path", "");
    if (prop.isBlank() || prop.startsWith("${")) {
      fail("system property leasekit.cli.path (the leasekit CLI binary) is not set");
    }
    Path cli = Path.of(prop);
    assertTrue(Files.isExecutable(cli), "no leasekit CLI binary at " + cli);
    return cli;
  }

  @BeforeAll
  static void startDaemon() throws Exception {
    // Short: a Unix socket path must fit in 108 bytes.
    dir = Files.createTempDirectory(Path.of("/tmp"), "lkj");
    socket = dir.resolve("s.sock");
    Path state = dir.resolve("state");
    Path policy = dir.resolve("policy.json");
    Files.writeString(policy, GovernorTest.LOAD_POLICY);
    daemon =
        new ProcessBuilder(
                cliPath().toString(),
                "serve",
                "--socket",
                socket.toString(),
                "--state",
                state.toString(),
                "--store",
                "memory",
                "--policy",
                policy.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("daemon.log").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      if (!daemon.isAlive()) {
        fail("leasekit serve exited with " + daemon.exitValue() + ": " + log());
      }
      if (Files.exists(socket)) {
        try (GovernorClient probe =
            GovernorClient.connect(
                socket.toString(), Duration.ofSeconds(2), GovernorClient.Fallback.OFF)) {
          probe.status();
          return;
        } catch (LeaseException notYet) {
          // not listening yet
        }
      }
      if (System.nanoTime() > deadline) {
        fail("leasekit serve did not answer within 30 s: " + log());
      }
      Thread.sleep(50);
    }
  }

  static String log() {
    try {
      return Files.readString(dir.resolve("daemon.log"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @AfterAll
  static void stopDaemon() throws Exception {
    try {
      if (daemon != null) {
        daemon.destroy(); // SIGTERM: graceful shutdown
        assertTrue(daemon.waitFor(60, TimeUnit.SECONDS), "daemon did not stop: " + log());
        assertEquals(0, daemon.exitValue(), "daemon exit status; log: " + log());
        assertFalse(Files.exists(socket), "the daemon removes its socket on shutdown");
      }
    } finally {
      if (daemon != null && daemon.isAlive()) {
        daemon.destroyForcibly();
      }
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  static GovernorClient client() {
    return GovernorClient.connect(
        socket.toString(), Duration.ofSeconds(20), GovernorClient.Fallback.OFF);
  }

  static int number(Map<String, Object> m, String key) {
    return ((Number) m.get(key)).intValue();
  }

  @Test
  void acquireAndReleaseOverTheSocket() {
    try (GovernorClient gov = client()) {
      Map<String, Object> grant = gov.acquire(GovernorTest.acquireRequest("client-a", 5));
      assertEquals(true, grant.get("granted"), grant.toString());
      String leaseId = (String) grant.get("leaseId");
      assertFalse(leaseId.startsWith("local-"), "a daemon lease, not a local one: " + leaseId);
      Map<String, Object> auth =
          gov.authorize(
              Json.write(
                  Map.of("leaseId", "no-such-lease", "capability", "fs.read", "target", "/x")));
      assertEquals(false, auth.get("allowed"), auth.toString());
      Map<String, Object> rel = gov.release(Map.of("leaseId", leaseId, "actualCostCents", 4));
      assertEquals("recorded", rel.get("classification"), rel.toString());
      assertEquals(Boolean.TRUE, gov.verifyAudit().get("ok"));
      assertTrue(gov.status().size() > 0);
    }
  }

  @Test
  void strictCallsRefuseBeforeSending() {
    try (GovernorClient gov = client()) {
      assertThrows(
          InvalidRequestException.class,
          () -> gov.acquire(Map.of("actorId", "a", "estimatedCostCent", 5)));
      assertThrows(InvalidRequestException.class, () -> gov.call("Frobnicate", Map.of()));
      // The daemon's own answer for an unknown lease.
      Map<String, Object> rel = gov.release(Map.of("leaseId", "no-such-lease"));
      assertEquals("leaseNotFound", rel.get("classification"), rel.toString());
    }
  }

  @Test
  void handleIsTheWireForm() {
    try (GovernorClient gov = client()) {
      JsonNode ok = Json.parse(gov.handle("GetMetrics", "{}"));
      assertTrue(ok.path("success").asBoolean(), ok.toString());
      assertTrue(Json.parse(ok.path("payloadJson").asText()).has("activeLeases"));
      JsonNode bad = Json.parse(gov.handle("Frobnicate", "{}"));
      assertFalse(bad.path("success").asBoolean(), bad.toString());
    }
  }

  @Test
  void manyThreadsShareOneClient() throws Exception {
    try (GovernorClient gov = client()) {
      int before = number(gov.metrics(), "spendTodayCents");
      int threads = 8;
      int pairs = 25;
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String actor = "thread-" + t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < pairs; i++) {
                    Map<String, Object> g = gov.acquire(GovernorTest.acquireRequest(actor, 2));
                    assertEquals(true, g.get("granted"), g.toString());
                    gov.release(Map.of("leaseId", g.get("leaseId"), "actualCostCents", 1));
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
      pool.shutdown();
      Map<String, Object> m = gov.metrics();
      assertEquals(threads * pairs, number(m, "spendTodayCents") - before);
    }
  }

  @Test
  void unreachableDaemonWithoutFallbackIsAnError() {
    String missing = dir.resolve("nobody.sock").toString();
    try (GovernorClient gov =
        GovernorClient.connect(missing, Duration.ofSeconds(2), GovernorClient.Fallback.OFF)) {
      LeaseException e =
          assertThrows(
              LeaseException.class, () -> gov.acquire(GovernorTest.acquireRequest("x", 1)));
      assertEquals(ErrorCode.INTERNAL_ERROR, e.code());
      assertEquals("daemon_unreachable", e.details().get("reason"));
      assertThrows(LeaseException.class, gov::metrics);
    }
  }

  @Test
  void devFallbackGrantsLocallyAndReleasesLocally() {
    String missing = dir.resolve("nobody.sock").toString();
    try (GovernorClient gov =
        GovernorClient.connect(missing, Duration.ofSeconds(2), GovernorClient.Fallback.DEV)) {
      Map<String, Object> grant = gov.acquire(GovernorTest.acquireRequest("x", 1));
      assertEquals(true, grant.get("granted"), grant.toString());
      assertTrue(((String) grant.get("leaseId")).startsWith("local-"), grant.toString());
      Map<String, Object> rel = gov.release(Map.of("leaseId", grant.get("leaseId")));
      assertEquals("recorded", rel.get("classification"), rel.toString());
      Map<String, Object> big = GovernorTest.acquireRequest("x", 1);
      big.put("maxOutputTokens", 1000);
      Map<String, Object> denied = gov.acquire(big);
      assertEquals(false, denied.get("granted"), denied.toString());
      assertEquals("service_unavailable_dev_cap", denied.get("deniedReason"));
    }
  }

  @Test
  void closedClientAndBadOptions() {
    GovernorClient gov = client();
    gov.close();
    gov.close();
    assertTrue(gov.isClosed());
    assertThrows(InvalidRequestException.class, gov::metrics);
    assertThrows(InvalidRequestException.class, () -> gov.handle("GetStatus", "{}"));
    assertThrows(
        InvalidRequestException.class,
        () -> GovernorClient.connect("x.sock", Duration.ZERO, GovernorClient.Fallback.OFF));
    assertThrows(
        InvalidRequestException.class,
        () -> GovernorClient.connect("", Duration.ofSeconds(1), GovernorClient.Fallback.OFF));
  }
}
