package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LeaseConstraintsTest {
  @Test
  void parseStrictUtcAcceptsOnlyTheArcpForm() {
    assertEquals(
        Instant.parse("2024-09-01T00:00:00Z"),
        LeaseConstraints.parseStrictUtc("2024-09-01T00:00:00Z"));
    assertEquals(
        Instant.parse("2024-09-01T00:00:00.123456789Z"),
        LeaseConstraints.parseStrictUtc("2024-09-01T00:00:00.123456789Z"));
    for (String bad :
        new String[] {
          "2024-09-01T00:00:00+00:00",
          "2024-09-01t00:00:00Z",
          "2024-09-01T00:00:00z",
          "2024-02-30T00:00:00Z",
          "2024-09-01T24:00:00Z",
          "2024-09-01T00:00:60Z",
          "2024-09-01T00:00:00.Z",
          "2024-09-01T00:00:00.1234567890Z",
          "2024-09-01 00:00:00Z",
          ""
        }) {
      assertThrows(InvalidRequestException.class, () -> LeaseConstraints.parseStrictUtc(bad), bad);
    }
  }

  @Test
  void ofAlwaysWritesZ() {
    LeaseConstraints c = LeaseConstraints.of(Instant.parse("2030-05-01T12:00:00.5Z"));
    assertEquals("2030-05-01T12:00:00.500Z", c.toString());
    assertEquals("{\"expires_at\":\"2030-05-01T12:00:00.500Z\"}", c.toJson());
    assertEquals(c, LeaseConstraints.fromJson(c.toJson()));
    assertEquals("{}", LeaseConstraints.none().toJson());
    assertEquals(LeaseConstraints.none(), LeaseConstraints.fromJson("{}"));
    assertEquals(LeaseConstraints.none(), LeaseConstraints.fromJson(null));
  }

  @Test
  void fromJsonRejectsOffsets() {
    assertThrows(
        InvalidRequestException.class,
        () -> LeaseConstraints.fromJson("{\"expires_at\": \"2030-01-01T00:00:00+00:00\"}"));
  }

  @Test
  void submitRequiresAFutureDeadline() {
    Instant now = Instant.parse("2030-01-01T00:00:00Z");
    Clock clock = Clock.fixed(now, ZoneOffset.UTC);
    assertDoesNotThrow(() -> LeaseConstraints.of(now.plusNanos(1)).validate(clock));
    assertThrows(InvalidRequestException.class, () -> LeaseConstraints.of(now).validate(clock));
    assertThrows(
        InvalidRequestException.class,
        () -> LeaseConstraints.of(now.minusSeconds(1)).validateAt(now));
    assertDoesNotThrow(() -> LeaseConstraints.none().validateAt(now));
  }

  @Test
  void narrowingKeepsTheEarlierDeadline() {
    LeaseConstraints early = LeaseConstraints.of(Instant.parse("2030-01-01T00:00:00Z"));
    LeaseConstraints late = LeaseConstraints.of(Instant.parse("2031-01-01T00:00:00Z"));
    assertEquals(early, late.narrow(early));
    assertEquals(early, early.narrow(late));
    assertEquals(
        Optional.of(early.expiresAt().orElseThrow()),
        LeaseConstraints.none().narrow(early).expiresAt());
  }

  @Test
  void yearsOutsideTheArcpRangeAreRejected() {
    assertThrows(
        InvalidRequestException.class,
        () -> LeaseConstraints.of(Instant.parse("+10000-01-01T00:00:00Z")));
  }
}
