package dev.leasekit;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A settable UTC clock for tests (the guard's injectable clock). */
final class ManualClock extends Clock {
  private volatile Instant now;

  ManualClock(Instant start) {
    this.now = start;
  }

  void set(Instant instant) {
    this.now = instant;
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
