package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * Every string argument goes through one conversion (text.rs {@code read}): a string holding a lone
 * surrogate has no UTF-8 form and is {@link InvalidRequestException} everywhere, never replaced by
 * U+FFFD (docs/decisions.md, "Text crossing a binding").
 */
class TextTest {
  static final String BAD = "/data/\uD800";
  static final String LOW = "x\uDC00";

  @TestFactory
  Stream<DynamicTest> loneSurrogateIsInvalidRequest() {
    Lease lease =
        Lease.builder()
            .allow("fs.read", "/data/**")
            .allow("model.use", "gpt-*")
            .budget("USD", new BigDecimal("5"))
            .build();
    LeaseGuard guard = LeaseGuard.of(lease);
    Map<String, Executable> calls = new LinkedHashMap<>();
    calls.put("isValidCapabilityName", () -> Capabilities.isValidCapabilityName(LOW));
    calls.put("isReservedCapabilityName", () -> Capabilities.isReservedCapabilityName(LOW));
    calls.put("canonicalizeTarget.capability", () -> Capabilities.canonicalizeTarget(LOW, "/a"));
    calls.put("canonicalizeTarget.target", () -> Capabilities.canonicalizeTarget("fs.read", BAD));
    calls.put("validatePattern", () -> Capabilities.validatePattern("fs.read", BAD));
    calls.put("matchPattern.pattern", () -> Capabilities.matchPattern("fs.read", BAD, "/a"));
    calls.put("matchPattern.target", () -> Capabilities.matchPattern("fs.read", "/**", BAD));
    calls.put("Lease.fromJson", () -> Lease.fromJson("{\"fs.read\": [\"" + BAD + "\"]}"));
    calls.put("Lease.of.key", () -> Lease.of(Map.of(LOW, List.of("/a"))));
    calls.put("Lease.of.pattern", () -> Lease.of(Map.of("fs.read", List.of(BAD))));
    calls.put("Lease.builder", () -> Lease.builder().allow("fs.read", BAD).build());
    calls.put(
        "LeaseConstraints.fromJson",
        () -> LeaseConstraints.fromJson("{\"expires_at\": \"" + LOW + "\"}"));
    calls.put("LeaseConstraints.parseStrictUtc", () -> LeaseConstraints.parseStrictUtc(LOW));
    calls.put("BudgetCounters.parseEntry", () -> BudgetCounters.parseEntry("USD:1" + LOW));
    calls.put("BudgetCounters.parseAmount", () -> BudgetCounters.parseAmount("1" + LOW));
    calls.put("BudgetCounters.sum", () -> BudgetCounters.sum(List.of("USD:1", LOW)));
    calls.put(
        "LeaseSubset.isSubset.remaining",
        () -> LeaseSubset.isSubset(lease, lease, Map.of(LOW, BigDecimal.ONE)));
    calls.put("authorize.capability", () -> guard.authorize(LOW, "/data/x"));
    calls.put("authorize.target", () -> guard.authorize("fs.read", BAD));
    calls.put("authorize.vendor", () -> guard.authorize("x-vendor.acme.thing", BAD));
    calls.put("authorizeModel", () -> guard.authorizeModel("gpt-" + LOW));
    calls.put("recordMetric.name", () -> guard.recordMetric("cost." + LOW, "1", "USD"));
    calls.put("recordMetric.value", () -> guard.recordMetric("cost.llm", "1" + LOW, "USD"));
    calls.put("recordMetric.unit", () -> guard.recordMetric("cost.llm", "1", LOW));
    calls.put("reserve.currency", () -> guard.reserve(LOW, BigDecimal.ONE));
    calls.put("delegate", () -> guard.delegate(Lease.of(Map.of("fs.read", List.of(BAD)))));
    calls.put("Agentfile.check", () -> Agentfile.check("AGENT " + LOW));
    calls.put("Agentfile.parse", () -> Agentfile.parse("AGENT " + LOW));
    Agentfile af = Agentfile.parse("AGENT a\nAUDIT basic\nTOOL utcp:a\n");
    calls.put(
        "Agentfile.evaluatePolicy.principal",
        () -> af.evaluatePolicy(LOW, "AgentRC::Action::\"x\"", "AgentRC::Tool::\"a\""));
    calls.put(
        "Agentfile.evaluatePolicy.resource",
        () -> af.evaluatePolicy("AgentRC::Agent::\"a\"", "AgentRC::Action::\"x\"", BAD));
    calls.put(
        "Agentfile.evaluatePolicy.context",
        () ->
            af.evaluatePolicy(
                "AgentRC::Agent::\"a\"",
                "AgentRC::Action::\"x\"",
                "AgentRC::Tool::\"a\"",
                Map.of("k", LOW)));
    return calls.entrySet().stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.getKey(),
                    () -> assertThrows(InvalidRequestException.class, e.getValue(), e.getKey())));
  }

  @Test
  void validNonAsciiTextPassesUnchanged() {
    assertEquals("/données/😀", Capabilities.canonicalizeTarget("fs.read", "/données/😀"));
    try (LeaseGuard guard = LeaseGuard.of(Lease.builder().allow("fs.read", "/data/**").build())) {
      assertEquals("/data/é", guard.authorize("fs.read", "/data/é"));
    }
  }
}
