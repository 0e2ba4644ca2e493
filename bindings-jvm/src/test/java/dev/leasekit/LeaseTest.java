package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LeaseTest {
  @Test
  void builderMirrorsTheJavaSdkGuide() {
    Instant deadline = Instant.parse("2030-01-01T00:00:00Z");
    Lease lease =
        Lease.builder()
            .allow("fs.read", "/data/**")
            .allow("net.fetch", "HTTPS://API.example.com:443")
            .allow("model.use", "claude-*")
            .allow("model.use", "gpt-4*")
            .budget("USD", new BigDecimal("10.00"))
            .budget("USD", new BigDecimal("0.50"))
            .expiresAt(deadline)
            .build();
    assertEquals(List.of("claude-*", "gpt-4*"), lease.patterns("model.use").orElseThrow());
    assertEquals(List.of("https://api.example.com/"), lease.patterns("net.fetch").orElseThrow());
    assertEquals(Optional.empty(), lease.patterns("fs.write"));
    assertEquals(0, new BigDecimal("10.5").compareTo(lease.budget().get("USD")));
    assertEquals(Optional.of(deadline), lease.expiresAt());
  }

  @Test
  void emptyCapabilityGrantsNothingButIsPresent() {
    Lease lease = Lease.builder().allow("tool.call").build();
    assertEquals(Optional.of(List.of()), lease.patterns("tool.call"));
  }

  @Test
  void invalidLeasesAreInvalidRequests() {
    assertThrows(
        InvalidRequestException.class, () -> Lease.builder().allow("acme.foo", "x").build());
    assertThrows(
        InvalidRequestException.class, () -> Lease.builder().allow("fs.read", "rel/*").build());
    assertThrows(InvalidRequestException.class, () -> Lease.builder().allow("fs.read", "").build());
    assertThrows(
        InvalidRequestException.class, () -> Lease.builder().allow("fs.read", "/a/***").build());
    assertThrows(
        InvalidRequestException.class,
        () -> Lease.builder().budget("USD", new BigDecimal("-1")).build());
    assertThrows(
        InvalidRequestException.class,
        () -> Lease.builder().budget("USD", new BigDecimal("0.0000000001")).build());
    assertThrows(InvalidRequestException.class, () -> Lease.fromJson("{\"fs.read\": \"/x\"}"));
    assertThrows(InvalidRequestException.class, () -> Lease.fromJson("{\"fs.read\": [1]}"));
  }

  @Test
  void jsonRoundTripAndEquality() {
    Lease a = Lease.fromJson("{\"tool.call\": [\"search:*\"], \"cost.budget\": [\"USD:1.50\"]}");
    Lease b = Lease.fromJson(a.toJson());
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertEquals(
        Map.of("tool.call", List.of("search:*"), "cost.budget", List.of("USD:1.50")).keySet(),
        a.capabilities());
    Lease c = b.withConstraints(LeaseConstraints.of(Instant.parse("2031-01-01T00:00:00Z")));
    assertNotEquals(a, c);
    assertTrue(c.toString().contains("2031-01-01T00:00:00Z"));
  }

  @Test
  void ofMap() {
    Lease lease = Lease.of(Map.of("agent.delegate", List.of("summarise@*")));
    assertEquals(List.of("summarise@*"), lease.patterns("agent.delegate").orElseThrow());
  }

  @Test
  void lintFindsLeaseWritingMistakes() {
    Lease risky =
        Lease.fromJson(
            "{\"net.fetch\": [\"https://api.example.com**\", \"*://api.example.com/**\","
                + " \"https://ok.example.com/v1/**\"], \"fs.read\": [\"/data/**\"]}");
    List<LeaseWarning> warnings = risky.lint();
    List<String> codes = warnings.stream().map(LeaseWarning::code).toList();
    assertTrue(codes.contains("host-open-suffix"), codes.toString());
    assertTrue(codes.contains("scheme-wildcard"), codes.toString());
    for (LeaseWarning w : warnings) {
      assertEquals("net.fetch", w.capability());
      assertTrue(!w.pattern().contains("ok.example.com"), w.toString());
      assertTrue(!w.message().isEmpty() && !w.hint().isEmpty(), w.toString());
    }
    Lease clean = Lease.fromJson("{\"fs.read\": [\"/data/**\"], \"tool.call\": [\"x\"]}");
    assertEquals(List.of(), clean.lint());
  }

  @Test
  void budgetExhaustionIsDecidedByTheCore() {
    Lease lease = Lease.fromJson("{\"cost.budget\": [\"USD:1\", \"EUR:2\"]}");
    try (LeaseGuard guard = LeaseGuard.of(lease)) {
      assertTrue(!guard.budget().isExhausted());
      guard.budget().spend("cost.llm", new BigDecimal("0.5"), "USD");
      assertTrue(!guard.budget().isExhausted());
      guard.budget().spend("cost.llm", new BigDecimal("2"), "EUR");
      assertTrue(guard.budget().isExhausted(), "EUR is at zero");
    }
    try (LeaseGuard unbudgeted = LeaseGuard.of(Lease.fromJson("{\"tool.call\": [\"x\"]}"))) {
      assertTrue(!unbudgeted.budget().isExhausted());
    }
  }
}
