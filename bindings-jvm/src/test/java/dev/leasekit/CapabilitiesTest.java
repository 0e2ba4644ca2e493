package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CapabilitiesTest {
  @Test
  void names() {
    assertTrue(Capabilities.isReservedCapabilityName("model.use"));
    assertTrue(Capabilities.isValidCapabilityName("x-vendor.acme.kafka.publish"));
    assertFalse(Capabilities.isReservedCapabilityName("x-vendor.acme.cap"));
    assertFalse(Capabilities.isValidCapabilityName("x-vendor.acme"));
    assertFalse(Capabilities.isValidCapabilityName("acme.foo"));
  }

  @Test
  void canonicalTargets() {
    assertEquals("/a/c", Capabilities.canonicalizeTarget("fs.read", "//a/./b/../c/"));
    assertEquals(
        "https://api.example.com/v1",
        Capabilities.canonicalizeTarget("net.fetch", "HTTPS://API.Example.COM:443/v1#frag"));
    assertThrows(
        InvalidRequestException.class,
        () -> Capabilities.canonicalizeTarget("net.fetch", "https://api.example.com@evil.com/"));
    assertThrows(
        InvalidRequestException.class, () -> Capabilities.canonicalizeTarget("fs.read", "rel/x"));
  }

  @Test
  void matching() {
    assertTrue(Capabilities.matchPattern("tool.call", "web.*", "web.search"));
    assertFalse(Capabilities.matchPattern("tool.call", "web.*", "web.search.advanced"));
    assertTrue(Capabilities.matchPattern("model.use", "gpt-4*", "gpt-4.1"));
    assertTrue(Capabilities.matchPattern("fs.read", "/data/**", "/data/x/y.csv"));
    assertFalse(Capabilities.matchPattern("fs.read", "/data/*", "/data/x/y.csv"));
    assertThrows(
        InvalidRequestException.class, () -> Capabilities.matchPattern("fs.read", "/a/***", "/a"));
  }

  @Test
  void matchingIsLinearTime() {
    String target = "a".repeat(10_000);
    long start = System.nanoTime();
    assertFalse(Capabilities.matchPattern("tool.call", "*a*a*a*a*a*a*a*a*a*a*a*a*c", target));
    assertTrue(System.nanoTime() - start < 2_000_000_000L, "pathological pattern took too long");
  }

  @Test
  void storedPatterns() {
    assertEquals(
        "https://api.example.com/",
        Capabilities.validatePattern("net.fetch", "HTTPS://API.example.com:443"));
    assertEquals(
        "https://*.example.com/**",
        Capabilities.validatePattern("net.fetch", "https://*.example.com/**"));
  }
}
