package dev.leasekit;

import java.math.BigInteger;
import java.time.Instant;
import java.time.format.DateTimeFormatter;

/** Instant conversions at the native boundary. */
final class Times {
  private static final BigInteger BILLION = BigInteger.valueOf(1_000_000_000L);

  private Times() {}

  /** Decimal nanoseconds since the epoch (from native) as an instant. */
  static Instant fromNanos(String nanos) {
    BigInteger[] parts = new BigInteger(nanos).divideAndRemainder(BILLION);
    // A negative remainder is a negative adjustment, which ofEpochSecond normalizes.
    return Instant.ofEpochSecond(parts[0].longValueExact(), parts[1].longValueExact());
  }

  /** An instant as ARCP text, {@code YYYY-MM-DDTHH:MM:SS[.fff]Z} (UTC, {@code Z} suffix). */
  static String format(Instant instant) {
    return DateTimeFormatter.ISO_INSTANT.format(instant);
  }
}
