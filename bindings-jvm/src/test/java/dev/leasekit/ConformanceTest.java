package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The shared conformance vectors ({@code conformance/vectors/*.json}, or the directory named by
 * {@code LEASEKIT_VECTORS}), run through the public Java API exactly as conformance/README.md
 * describes. One dynamic test per vector; an unknown op fails.
 */
class ConformanceTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @TestFactory
  Stream<DynamicTest> vectors() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (Path file : vectorFiles()) {
      JsonNode root = Json.MAPPER.readTree(file.toFile());
      for (JsonNode vector : root.path("vectors")) {
        String name = file.getFileName() + ":" + vector.path("id").asText("?");
        tests.add(
            DynamicTest.dynamicTest(
                name,
                () -> {
                  try {
                    check(vector);
                  } catch (AssertionError e) {
                    throw new AssertionError(name + ": " + e.getMessage(), e);
                  }
                }));
      }
    }
    assertTrue(!tests.isEmpty(), "no vectors found: an empty run proves nothing");
    return tests.stream();
  }

  static List<Path> vectorFiles() throws IOException {
    String env = System.getenv("LEASEKIT_VECTORS");
    String dir =
        env != null && !env.isEmpty()
            ? env
            : System.getProperty("leasekit.vectors.default", "../conformance/vectors");
    Path path = Path.of(dir);
    assertTrue(Files.isDirectory(path), "vector directory " + path + " does not exist");
    try (Stream<Path> files = Files.list(path)) {
      return files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
  }

  /** Runs one vector and compares its outcome with {@code expect}. */
  static void check(JsonNode vector) {
    String op = vector.path("op").asText();
    JsonNode input = vector.path("input");
    JsonNode expect = vector.path("expect");
    String expectedError = errorCode(expect);
    JsonNode actual;
    try {
      actual = run(op, input);
    } catch (LeaseException e) {
      if (expectedError == null) {
        fail("expected " + expect + " but got " + e.code() + ": " + e.getMessage());
      }
      assertEquals(expectedError, e.code().name(), "error code");
      return;
    }
    if (expectedError != null) {
      fail("expected error " + expectedError + " but got " + actual);
    }
    compare(op, expect, actual);
  }

  /** The code of an {@code {"error": CODE}} expectation, else null. */
  static String errorCode(JsonNode expect) {
    if (expect.isObject() && expect.size() == 1 && expect.path("error").isTextual()) {
      return expect.path("error").asText();
    }
    return null;
  }

  /** Runs an op through the public API and returns its result as JSON. */
  static JsonNode run(String op, JsonNode in) {
    return switch (op) {
      case "capability_name" -> {
        String name = in.path("name").asText();
        ObjectNode out = NODES.objectNode();
        out.put("valid", Capabilities.isValidCapabilityName(name));
        out.put("reserved", Capabilities.isReservedCapabilityName(name));
        yield out;
      }
      case "validate_lease" -> {
        lease(in.get("lease"), null);
        yield NODES.textNode("ok");
      }
      case "canonicalize" ->
          NODES.textNode(
              Capabilities.canonicalizeTarget(text(in, "capability"), text(in, "target")));
      case "match" ->
          NODES.booleanNode(
              Capabilities.matchPattern(
                  text(in, "capability"), text(in, "pattern"), text(in, "target")));
      case "subset" -> {
        if (!typedSubsetOptions(in)) {
          yield NODES.booleanNode(rawSubset(in));
        }
        Lease child = lease(in.get("child"), in.get("child_constraints"));
        Lease parent = lease(in.get("parent"), in.get("parent_constraints"));
        Map<String, BigDecimal> remaining = null;
        JsonNode r = in.get("parent_remaining");
        if (r != null && !r.isNull()) {
          remaining = new TreeMap<>();
          for (var it = r.fields(); it.hasNext(); ) {
            var e = it.next();
            remaining.put(e.getKey(), new BigDecimal(e.getValue().asText()));
          }
        }
        yield NODES.booleanNode(LeaseSubset.isSubset(child, parent, remaining));
      }
      case "budget_parse" -> {
        BudgetCounters.BudgetEntry entry = BudgetCounters.parseEntry(text(in, "entry"));
        ObjectNode out = NODES.objectNode();
        out.put("currency", entry.currency());
        out.put("amount", entry.amount().toPlainString());
        yield out;
      }
      case "budget_sum" -> {
        List<String> entries = new ArrayList<>();
        in.path("entries").forEach(e -> entries.add(e.asText()));
        yield amounts(BudgetCounters.sum(entries));
      }
      case "expires_at" -> {
        Instant value = LeaseConstraints.parseStrictUtc(text(in, "value"));
        Instant now = LeaseConstraints.parseStrictUtc(text(in, "now"));
        LeaseConstraints.of(value).validateAt(now);
        yield NODES.textNode("ok");
      }
      case "authorize" -> authorize(in);
      case "governor" -> GovernorOps.governor(in);
      case "frame_decode" -> GovernorOps.frameDecode(in);
      case "narrow" -> {
        Lease requested = lease(in.get("requested"), null);
        Lease ceiling = lease(in.get("ceiling"), null);
        yield Json.parse(Narrowing.narrow(requested, ceiling).lease().toJson());
      }
      case "agentfile" -> {
        Agentfile.Report report =
            Agentfile.check(text(in, "text"), in.path("compat").asBoolean(false));
        sameAsParsed(report, Agentfile.parse(text(in, "text"), in.path("compat").asBoolean(false)));
        ObjectNode out = NODES.objectNode();
        out.put("ok", report.ok());
        ArrayNode errors = out.putArray("errors");
        report.errors().stream().map(Agentfile.Diagnostic::code).distinct().forEach(errors::add);
        if (report.lease().isPresent()) {
          out.set("lease", Json.parse(report.lease().get().toJson()));
        }
        yield out;
      }
      default -> throw new AssertionError("unknown op: " + op);
    };
  }

  static JsonNode authorize(JsonNode in) {
    Lease lease = lease(in.get("lease"), in.get("constraints"));
    ManualClock clock = new ManualClock(Instant.now());
    ArrayNode results = NODES.arrayNode();
    try (LeaseGuard guard = LeaseGuard.builder(lease).clock(clock).build()) {
      for (JsonNode step : in.path("steps")) {
        if (step.hasNonNull("at")) {
          clock.set(LeaseConstraints.parseStrictUtc(step.get("at").asText()));
        }
        try {
          results.add(step(guard, step));
        } catch (LeaseException e) {
          results.add(NODES.objectNode().put("error", e.code().name()));
        }
      }
    }
    return results;
  }

  static JsonNode step(LeaseGuard guard, JsonNode step) {
    if (step.has("authorize")) {
      JsonNode a = step.get("authorize");
      guard.authorize(a.path(0).asText(), a.path(1).asText());
      return NODES.textNode("ok");
    }
    if (step.has("model")) {
      guard.authorizeModel(step.get("model").asText());
      return NODES.textNode("ok");
    }
    if (step.has("reserve")) {
      JsonNode r = step.get("reserve");
      guard.reserve(r.path(0).asText(), BudgetCounters.parseAmount(decimalText(r.path(1))));
      return NODES.textNode("ok");
    }
    if (step.has("metric")) {
      JsonNode m = step.get("metric");
      List<Metric> emitted =
          guard.recordMetric(
              m.path("name").asText(), decimalText(m.path("value")), m.path("unit").asText());
      ObjectNode out = NODES.objectNode();
      out.set("remaining", amounts(guard.remaining()));
      ArrayNode list = out.putArray("emitted");
      for (Metric metric : emitted) {
        list.addObject()
            .put("name", metric.name())
            .put("value", metric.value().toPlainString())
            .put("unit", metric.unit());
      }
      return out;
    }
    throw new AssertionError("unknown authorize step: " + step);
  }

  /** The subset option keys of the vector format (docs/api.md). */
  static final Set<String> SUBSET_OPTIONS =
      Set.of("parent_remaining", "child_constraints", "parent_constraints");

  /**
   * Whether the typed API ({@code LeaseSubset.isSubset(child, parent, Map<String, BigDecimal>)},
   * constraints on the leases) can pass a subset vector's options exactly: only known keys, object
   * (or null) constraints, and amounts that are strings a {@link BigDecimal} writes back verbatim.
   * Other options (unknown keys, numbers, "+1", "1e3", ...) cannot be written with Java types at
   * all; those vectors reach the same native call with the vector's options as JSON text.
   */
  static boolean typedSubsetOptions(JsonNode in) {
    for (var it = in.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!key.equals("child") && !key.equals("parent") && !SUBSET_OPTIONS.contains(key)) {
        return false;
      }
    }
    for (String key : List.of("child_constraints", "parent_constraints")) {
      JsonNode c = in.get(key);
      if (c != null && !c.isNull() && !c.isObject()) {
        return false;
      }
    }
    JsonNode r = in.get("parent_remaining");
    if (r == null || r.isNull()) {
      return true;
    }
    if (!r.isObject()) {
      return false;
    }
    for (JsonNode v : r) {
      if (!v.isTextual()) {
        return false;
      }
      try {
        if (!new BigDecimal(v.asText()).toPlainString().equals(v.asText())) {
          return false;
        }
      } catch (NumberFormatException e) {
        return false;
      }
    }
    return true;
  }

  /** A subset vector with its options (everything but the leases) passed as JSON text. */
  static boolean rawSubset(JsonNode in) {
    ObjectNode options = NODES.objectNode();
    in.fields()
        .forEachRemaining(
            e -> {
              if (!e.getKey().equals("child") && !e.getKey().equals("parent")) {
                options.set(e.getKey(), e.getValue());
              }
            });
    Lease child = lease(in.get("child"), null);
    Lease parent = lease(in.get("parent"), null);
    return Native.isSubset(child.toJson(), parent.toJson(), Json.write(options));
  }

  /**
   * The object API agrees with the one-call check on every Agentfile vector: {@code parse} then
   * {@code lint} gives the same diagnostics and, when the check derives a lease, {@code lease()}
   * the same lease. (Where the check derives none, {@code lease()} may still derive one: core's
   * {@code agentfile_lease} refuses only parse errors and invalid patterns, while the check also
   * withholds the lease for lint errors.)
   */
  static void sameAsParsed(Agentfile.Report report, Agentfile parsed) {
    assertEquals(report.diagnostics(), parsed.lint(), "Agentfile.parse(..).lint()");
    if (report.lease().isPresent()) {
      assertEquals(report.lease().get(), parsed.lease(), "Agentfile.parse(..).lease()");
    }
  }

  /** Builds a lease (and its constraints) from vector JSON, through the public API. */
  static Lease lease(JsonNode lease, JsonNode constraints) {
    LeaseConstraints c =
        constraints == null || constraints.isNull()
            ? LeaseConstraints.none()
            : LeaseConstraints.fromJson(Json.write(constraints));
    return Lease.fromJson(Json.write(lease == null ? NODES.nullNode() : lease), c);
  }

  static String text(JsonNode in, String field) {
    JsonNode node = in.get(field);
    if (node == null || !node.isTextual()) {
      throw new AssertionError("vector input " + field + " must be a string: " + in);
    }
    return node.asText();
  }

  /** A decimal from a vector: strings verbatim, JSON numbers in plain notation. */
  static String decimalText(JsonNode node) {
    return node.isNumber() ? node.decimalValue().toPlainString() : node.asText();
  }

  static ObjectNode amounts(Map<String, BigDecimal> amounts) {
    ObjectNode out = NODES.objectNode();
    amounts.forEach((k, v) -> out.put(k, v.toPlainString()));
    return out;
  }

  // ---- comparison ----

  static void compare(String op, JsonNode expect, JsonNode actual) {
    switch (op) {
      case "budget_parse" -> {
        assertEquals(expect.path("currency").asText(), actual.path("currency").asText());
        assertDecimal(expect.path("amount"), actual.path("amount"), "amount");
      }
      case "budget_sum" -> assertAmounts(expect, actual, "sums");
      case "authorize" -> compareSteps(expect, actual);
      case "governor" ->
          assertTrue(GovernorOps.equal(expect, actual), "expected " + expect + ", got " + actual);
      case "narrow" -> assertLeaseEquivalent(expect, actual);
      case "agentfile" -> compareAgentfile(expect, actual);
      default -> assertEquals(expect, actual);
    }
  }

  /** Only the keys present in {@code expect} are compared. */
  static void compareAgentfile(JsonNode expect, JsonNode actual) {
    if (expect.has("ok")) {
      assertEquals(expect.get("ok"), actual.get("ok"), "ok; diagnostics " + actual);
    }
    if (expect.has("errors")) {
      assertEquals(
          new HashSet<>(strings(expect.get("errors"))),
          new HashSet<>(strings(actual.get("errors"))),
          "error codes");
    }
    if (expect.has("lease")) {
      assertTrue(actual.has("lease"), "no lease derived: " + actual);
      assertLeaseEquivalent(expect.get("lease"), actual.get("lease"));
    }
  }

  static void compareSteps(JsonNode expect, JsonNode actual) {
    assertTrue(expect.isArray(), "authorize expectation must be a list: " + expect);
    assertEquals(expect.size(), actual.size(), "number of steps");
    for (int i = 0; i < expect.size(); i++) {
      JsonNode e = expect.get(i);
      JsonNode a = actual.get(i);
      String where = "step " + i + ": expected " + e + ", got " + a;
      if (e.isObject() && e.has("remaining")) {
        assertTrue(a.isObject() && a.has("remaining"), where);
        assertAmounts(e.get("remaining"), a.get("remaining"), where);
        JsonNode ee = e.path("emitted");
        JsonNode ae = a.path("emitted");
        assertEquals(ee.size(), ae.size(), where);
        for (int j = 0; j < ee.size(); j++) {
          assertEquals(ee.get(j).path("name"), ae.get(j).path("name"), where);
          assertEquals(ee.get(j).path("unit"), ae.get(j).path("unit"), where);
          assertDecimal(ee.get(j).path("value"), ae.get(j).path("value"), where);
        }
      } else {
        assertEquals(e, a, where);
      }
    }
  }

  static void assertLeaseEquivalent(JsonNode expect, JsonNode actual) {
    Set<String> expectedCaps = new HashSet<>();
    expect.fieldNames().forEachRemaining(expectedCaps::add);
    Set<String> actualCaps = new HashSet<>();
    actual.fieldNames().forEachRemaining(actualCaps::add);
    assertEquals(expectedCaps, actualCaps, "capabilities of " + actual);
    for (String cap : expectedCaps) {
      if (cap.equals("cost.budget")) {
        ObjectNode e = amounts(BudgetCounters.sum(strings(expect.get(cap))));
        ObjectNode a = amounts(BudgetCounters.sum(strings(actual.get(cap))));
        assertAmounts(e, a, "cost.budget of " + actual);
      } else {
        assertEquals(
            new HashSet<>(strings(expect.get(cap))),
            new HashSet<>(strings(actual.get(cap))),
            cap + " of " + actual);
      }
    }
  }

  static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(s -> out.add(s.asText()));
    return out;
  }

  static void assertAmounts(JsonNode expect, JsonNode actual, String what) {
    Set<String> ek = new HashSet<>();
    expect.fieldNames().forEachRemaining(ek::add);
    Set<String> ak = new HashSet<>();
    actual.fieldNames().forEachRemaining(ak::add);
    assertEquals(ek, ak, what + ": currencies");
    for (String k : ek) {
      assertDecimal(expect.get(k), actual.get(k), what + ": " + k);
    }
  }

  static void assertDecimal(JsonNode expect, JsonNode actual, String what) {
    BigDecimal e = new BigDecimal(decimalText(expect));
    BigDecimal a = new BigDecimal(decimalText(actual));
    assertEquals(0, e.compareTo(a), what + ": expected " + e + ", got " + a);
  }
}
