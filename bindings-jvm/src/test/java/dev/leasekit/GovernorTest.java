package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded {@link Governor}: typed calls, wire form, frames, lifetime, SQLite, threads. */
class GovernorTest {
  static final String START = "2026-03-01T12:00:00Z";

  /** A policy roomy enough for the thread tests (the defaults limit rate and in-flight leases). */
  static final String LOAD_POLICY =
      "{\"maxInFlight\": 64, \"maxRequestsPerMinute\": 1000000, \"maxTokensPerMinute\":"
          + " 1000000000, \"dailyBudgetCents\": 100000000, \"spendSpikeCents\": 100000000}";

  static Map<String, Object> acquireRequest(String actor, int cents) {
    Map<String, Object> req = new LinkedHashMap<>();
    req.put("actorId", actor);
    req.put("workspaceId", "ws1");
    req.put("modelId", "gpt-4o-mini");
    req.put("estimatedPromptTokens", 100);
    req.put("maxOutputTokens", 50);
    req.put("estimatedCostCents", cents);
    return req;
  }

  static Governor testGovernor(String store) {
    return Governor.open(
        store, Map.of("policyVersion", "v1"), Map.of("manualClock", START, "ids", "deterministic"));
  }

  @Test
  void acquireAndReleaseWithMaps() {
    try (Governor gov = testGovernor("memory")) {
      Map<String, Object> grant = gov.acquire(acquireRequest("alice", 5));
      assertEquals(true, grant.get("granted"));
      assertEquals("lease-1", grant.get("leaseId"));
      assertEquals("2026-03-01T12:00:20.000Z", grant.get("expiresAtUtc"));
      assertEquals("v1", grant.get("policyVersion"));
      assertEquals(1, ((Number) gov.metrics().get("activeLeases")).intValue());
      Map<String, Object> rel =
          gov.release(Map.of("leaseId", "lease-1", "actualCostCents", 4, "actualOutputTokens", 40));
      assertEquals("recorded", rel.get("classification"));
      Map<String, Object> metrics = gov.metrics();
      assertEquals(0, ((Number) metrics.get("activeLeases")).intValue());
      assertEquals(4, ((Number) metrics.get("spendTodayCents")).intValue());
      assertEquals(Boolean.TRUE, gov.verifyAudit().get("ok"));
      assertThrows(UnsupportedOperationException.class, () -> metrics.put("x", 1));
    }
  }

  @Test
  void acquireWithJsonText() {
    try (Governor gov = testGovernor("memory")) {
      Map<String, Object> grant = gov.acquire(Json.write(acquireRequest("bob", 5)));
      assertEquals("lease-1", grant.get("leaseId"));
      String answer = gov.callJson("GetStatus", null);
      assertTrue(Json.parse(answer).isObject(), answer);
    }
  }

  @Test
  void strictCallsRefuseUnknownFieldsCommandsAndBadJson() {
    try (Governor gov = testGovernor("memory")) {
      Map<String, Object> req = acquireRequest("alice", 5);
      req.put("actorID", "typo");
      InvalidRequestException e =
          assertThrows(InvalidRequestException.class, () -> gov.acquire(req));
      assertEquals(ErrorCode.INVALID_REQUEST, e.code());
      assertThrows(InvalidRequestException.class, () -> gov.call("Frobnicate", Map.of()));
      assertThrows(InvalidRequestException.class, () -> gov.acquire("{not json"));
      assertThrows(
          InvalidRequestException.class,
          () -> gov.acquire(Map.of("actorId", "a", "estimatedCostCents", -5)));
      assertThrows(
          InvalidRequestException.class,
          () -> gov.acquire(Map.of("actorId", "a", "estimatedCostCents", "5")));
      // Nothing was granted or counted by the refused calls.
      assertEquals(0, ((Number) gov.metrics().get("activeLeases")).intValue());
      assertEquals(List.of(), gov.exportAudit().get("records"));
    }
  }

  @Test
  void requestMapsMustBePlainData() {
    try (Governor gov = testGovernor("memory")) {
      Map<String, Object> req = acquireRequest("alice", 5);
      req.put("actorId", new StringBuilder("alice"));
      assertThrows(InvalidRequestException.class, () -> gov.acquire(req));
      Map<Object, Object> badKey = new HashMap<>();
      badKey.put(1, "x");
      assertThrows(InvalidRequestException.class, () -> gov.acquire(Map.of("metadata", badKey)));
      assertThrows(
          InvalidRequestException.class,
          () -> gov.acquire(Map.of("estimatedCostCents", Double.NaN)));
      // A Map subclass is read through entrySet() once: what it shows there is what is sent
      // (were get() consulted, estimatedCostCents would be "admin" and the call refused).
      Map<String, Object> sneaky =
          new HashMap<>(acquireRequest("alice", 5)) {
            private static final long serialVersionUID = 1L;

            @Override
            public Object get(Object key) {
              return "admin";
            }
          };
      assertEquals("lease-1", gov.acquire(sneaky).get("leaseId"));
      Object deep = "x";
      for (int i = 0; i < 200; i++) {
        deep = List.of(deep);
      }
      Object tooDeep = deep;
      assertThrows(
          InvalidRequestException.class, () -> gov.acquire(Map.of("requestedTools", tooDeep)));
    }
  }

  @Test
  void handleAnswersEnvelopesNotExceptions() {
    try (Governor gov = testGovernor("memory")) {
      JsonNode ok = Json.parse(gov.handle("Acquire", Json.write(acquireRequest("alice", 5))));
      assertTrue(ok.path("success").asBoolean(), ok.toString());
      assertEquals("lease-1", Json.parse(ok.path("payloadJson").asText()).path("leaseId").asText());
      JsonNode bad = Json.parse(gov.handle("Frobnicate", "{}"));
      assertFalse(bad.path("success").asBoolean());
      assertFalse(bad.path("error").asText().isEmpty());
      JsonNode garbage = Json.parse(gov.handle("Acquire", "{"));
      assertFalse(garbage.path("success").asBoolean());
    }
  }

  static byte[] frame(String command, String payloadJson) {
    String env =
        Json.write(
            Map.of("protocolVersion", "0.1", "command", command, "payloadJson", payloadJson));
    byte[] body = env.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[body.length + 4];
    int n = body.length;
    out[0] = (byte) n;
    out[1] = (byte) (n >> 8);
    out[2] = (byte) (n >> 16);
    out[3] = (byte) (n >> 24);
    System.arraycopy(body, 0, out, 4, n);
    return out;
  }

  @Test
  void framesRoundTrip() {
    byte[] req = frame("Acquire", Json.write(acquireRequest("alice", 5)));
    Map<String, Object> decoded = Governor.decodeFrame(req);
    assertEquals("Acquire", decoded.get("command"));
    assertEquals("0.1", decoded.get("protocolVersion"));
    try (Governor gov = testGovernor("memory")) {
      byte[] resp = gov.handleFrame(req);
      int n =
          (resp[0] & 0xff)
              | (resp[1] & 0xff) << 8
              | (resp[2] & 0xff) << 16
              | (resp[3] & 0xff) << 24;
      assertEquals(resp.length - 4, n);
      JsonNode env = Json.parse(new String(resp, 4, n, StandardCharsets.UTF_8));
      assertTrue(env.path("success").asBoolean(), env.toString());
      // A malformed frame is a failure envelope, not an exception.
      byte[] bad = gov.handleFrame(new byte[] {0, 0, 0, 0});
      JsonNode badEnv = Json.parse(new String(bad, 4, bad.length - 4, StandardCharsets.UTF_8));
      assertFalse(badEnv.path("success").asBoolean());
    }
    assertThrows(InvalidRequestException.class, () -> Governor.decodeFrame(new byte[] {0, 0, 0}));
    assertThrows(
        InvalidRequestException.class, () -> Governor.decodeFrame(new byte[] {-1, -1, -1, -1}));
  }

  @Test
  void manualClockExpiresLeases() {
    try (Governor gov = testGovernor("memory")) {
      assertEquals(Instant.parse(START), gov.time());
      gov.acquire(acquireRequest("alice", 5));
      gov.advanceTime(60_000);
      assertEquals(Instant.parse("2026-03-01T12:01:00Z"), gov.time());
      assertEquals(0, ((Number) gov.metrics().get("activeLeases")).intValue());
      gov.setTime(Instant.parse("2026-03-02T00:00:00Z"));
      assertEquals(Instant.parse("2026-03-02T00:00:00Z"), gov.time());
      assertThrows(InvalidRequestException.class, () -> gov.advanceTime(-1));
    }
    try (Governor real = Governor.open("memory")) {
      assertThrows(InvalidRequestException.class, real::time);
    }
  }

  @Test
  void useAfterCloseIsAnErrorNotACrash() {
    Governor gov = testGovernor("memory");
    gov.close();
    gov.close();
    assertTrue(gov.isClosed());
    assertThrows(InvalidRequestException.class, gov::metrics);
    assertThrows(InvalidRequestException.class, () -> gov.handle("GetStatus", "{}"));
    assertThrows(InvalidRequestException.class, () -> gov.handleFrame(new byte[4]));
    assertThrows(InvalidRequestException.class, gov::time);
  }

  @Test
  void badOpenArguments() {
    assertThrows(InvalidRequestException.class, () -> Governor.open(""));
    assertThrows(InvalidRequestException.class, () -> Governor.open("memory", "{", null));
    assertThrows(
        InvalidRequestException.class,
        () -> Governor.open("memory", null, "{\"synchronous\":\"full\"}"));
    assertThrows(
        InvalidRequestException.class, () -> Governor.open("memory", null, "{\"ids\":\"odd\"}"));
    assertThrows(InvalidRequestException.class, () -> Governor.open("memory", "\ud800", null));
  }

  @Test
  void sqliteStoreSurvivesReopen(@TempDir Path dir) {
    Path db = dir.resolve("gov.db");
    String leaseId;
    try (Governor gov = Governor.open(db, null, "{\"synchronous\":\"normal\"}")) {
      Map<String, Object> grant = gov.acquire(acquireRequest("alice", 5));
      assertEquals(true, grant.get("granted"));
      leaseId = (String) grant.get("leaseId");
    }
    assertTrue(Files.exists(db));
    try (Governor gov = Governor.open("sqlite:" + db)) {
      assertEquals(1, ((Number) gov.metrics().get("activeLeases")).intValue());
      gov.release(Map.of("leaseId", leaseId, "actualCostCents", 3));
      assertEquals(0, ((Number) gov.metrics().get("activeLeases")).intValue());
      assertEquals(Boolean.TRUE, gov.verifyAudit().get("ok"));
    }
  }

  @Test
  void threadsShareOneGovernor(@TempDir Path dir) throws Exception {
    for (String store : List.of("memory", "sqlite:" + dir.resolve("t.db"))) {
      try (Governor gov = Governor.open(store, LOAD_POLICY, null)) {
        int threads = 8;
        int pairs = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Integer>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          String actor = "actor-" + t;
          done.add(
              pool.submit(
                  () -> {
                    int spent = 0;
                    for (int i = 0; i < pairs; i++) {
                      Map<String, Object> grant = gov.acquire(acquireRequest(actor, 2));
                      assertEquals(true, grant.get("granted"), grant.toString());
                      gov.release(Map.of("leaseId", grant.get("leaseId"), "actualCostCents", 1));
                      spent += 1;
                    }
                    return spent;
                  }));
        }
        int total = 0;
        for (Future<Integer> f : done) {
          total += f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        Map<String, Object> m = gov.metrics();
        assertEquals(0, ((Number) m.get("activeLeases")).intValue(), store);
        assertEquals(total, ((Number) m.get("spendTodayCents")).intValue(), store);
        assertNotNull(gov.status());
      }
    }
  }

  @Test
  void nativeBoundaryRefusesNullsAndZeroHandles() {
    assertThrows(InvalidRequestException.class, () -> Native.governorOpen(null, null, null));
    assertThrows(InvalidRequestException.class, () -> Native.governorCall(0, "GetStatus", "{}"));
    assertThrows(InvalidRequestException.class, () -> Native.governorHandle(0, "GetStatus", "{}"));
    assertThrows(InvalidRequestException.class, () -> Native.governorTime(0));
    assertThrows(InvalidRequestException.class, () -> Native.decodeFrame(null));
    assertThrows(InvalidRequestException.class, () -> Native.clientCall(0, "GetStatus", "{}"));
    assertThrows(InvalidRequestException.class, () -> Native.clientConnect("x.sock", 0, "prod"));
    assertThrows(InvalidRequestException.class, () -> Native.clientConnect("x.sock", 10, "on"));
    long h = Native.governorOpen("memory", null, null);
    try {
      assertThrows(InvalidRequestException.class, () -> Native.governorHandleFrame(h, null));
      assertThrows(InvalidRequestException.class, () -> Native.governorCall(h, null, "{}"));
      assertThrows(
          InvalidRequestException.class, () -> Native.governorHandle(h, "GetStatus", null));
      Native.governorClose(h);
      Native.governorClose(h);
      assertThrows(InvalidRequestException.class, () -> Native.governorCall(h, "GetStatus", "{}"));
    } finally {
      Native.governorFree(h);
    }
  }
}
