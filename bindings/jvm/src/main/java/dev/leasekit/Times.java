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
    long seconds = parts[0].longValueExact();
    long nano = parts[1].longValueExact();
    if (nano < 0) {
      seconds -= 1;
      nano += 1_000_000_000L;
    }
    return Instant.ofEpochSecond(seconds, nano);
  }

  /** An instant as ARCP text, {@code YYYY-MM-DDTHH:MM:SS[.fff]Z} (UTC, {@code Z} suffix). */
  static String format(Instant instant) {
    return DateTimeFormatter.ISO_INSTANT.format(instant);
  }
}
