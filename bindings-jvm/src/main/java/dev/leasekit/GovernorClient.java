package dev.leasekit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * The governor of a {@code leasekit serve} daemon (docs/daemon.md), reached over its Unix socket,
 * with the same methods as the embedded {@link Governor} ({@link GovernorApi}). Connections are
 * kept for reuse; each call has a timeout. Safe to share between threads.
 *
 * <p>When the daemon cannot be reached (no socket, nobody listening), an {@code Acquire} is decided
 * locally by the fallback rules of SEMANTICS 13.13 ({@link Fallback#DEV} or {@link Fallback#PROD},
 * the default); an answer with {@code success: false} and a failure after the request may have
 * reached the daemon are always exceptions, never a fallback.
 *
 * <pre>{@code
 * try (GovernorClient gov = GovernorClient.connect("/run/user/1000/leasekit.sock")) {
 *   Map<String, Object> grant = gov.acquire(Map.of("actorId", "alice", "estimatedCostCents", 3));
 * }
 * }</pre>
 */
public final class GovernorClient implements GovernorApi {
  /** What an {@code Acquire} does when the daemon cannot be reached (SEMANTICS 13.13). */
  public enum Fallback {
    /** No fallback: every call fails when the daemon is unreachable. */
    OFF,
    /** LeaseGate's dev rules (small, non-risky local grants). */
    DEV,
    /** LeaseGate's prod rules (read-only chat with at most 128 output tokens); the default. */
    PROD
  }

  /** The default time allowed for one call. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private final NativeHandle handle;
  private final String socket;

  private GovernorClient(long nativeHandle, String socket) {
    this.handle =
        new NativeHandle(
            nativeHandle,
            Native::clientFree,
            () -> new InvalidRequestException("the governor client is closed"));
    this.socket = socket;
  }

  /**
   * A client of the daemon at {@code socketPath} with the default timeout and the {@link
   * Fallback#PROD} fallback. Nothing is connected yet: the first call connects.
   *
   * @param socketPath the daemon's socket
   * @return the client
   */
  public static GovernorClient connect(String socketPath) {
    return connect(socketPath, DEFAULT_TIMEOUT, Fallback.PROD);
  }

  /**
   * A client of the daemon at {@code socketPath}.
   *
   * @param socketPath the daemon's socket
   * @param timeout time allowed for one call (connect, send, answer); positive
   * @param fallback what an {@code Acquire} does when the daemon cannot be reached
   * @return the client
   * @throws InvalidRequestException for an empty path or a non-positive timeout
   */
  public static GovernorClient connect(String socketPath, Duration timeout, Fallback fallback) {
    Objects.requireNonNull(socketPath, "socketPath");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(fallback, "fallback");
    long millis;
    try {
      millis = timeout.toMillis();
    } catch (ArithmeticException e) {
      millis = Long.MAX_VALUE;
    }
    if (timeout.isNegative() || timeout.isZero() || millis <= 0) {
      throw new InvalidRequestException("timeout must be at least one millisecond: " + timeout);
    }
    String mode = fallback.name().toLowerCase(java.util.Locale.ROOT);
    return new GovernorClient(Native.clientConnect(socketPath, millis, mode), socketPath);
  }

  /**
   * As {@link #connect(String, Duration, Fallback)} with a path.
   *
   * @param socketPath the daemon's socket
   * @param timeout time allowed for one call
   * @param fallback what an {@code Acquire} does when the daemon cannot be reached
   * @return the client
   */
  public static GovernorClient connect(Path socketPath, Duration timeout, Fallback fallback) {
    Objects.requireNonNull(socketPath, "socketPath");
    return connect(socketPath.toString(), timeout, fallback);
  }

  /**
   * The socket this client talks to.
   *
   * @return the socket path as given
   */
  public String socket() {
    return socket;
  }

  @Override
  public String callJson(String command, String payloadJson) {
    Objects.requireNonNull(command, "command");
    return handle.call(h -> Native.clientCall(h, command, payloadJson));
  }

  /**
   * {@inheritDoc}
   *
   * <p>A transport failure is a {@code success: false} envelope, except an {@code Acquire}
   * (fallback grant or denial) or a {@code Release} of this client's local lease when the daemon
   * cannot be reached.
   */
  @Override
  public String handle(String command, String payloadJson) {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(payloadJson, "payloadJson");
    return handle.call(h -> Native.clientHandle(h, command, payloadJson));
  }

  /** Closes this client and its pooled connections. Idempotent. */
  @Override
  public void close() {
    handle.release(Native::clientClose);
  }

  /**
   * Whether {@link #close} ran.
   *
   * @return {@code true} once closed
   */
  public boolean isClosed() {
    return handle.isReleased();
  }

  @Override
  public String toString() {
    return "GovernorClient[" + socket + (isClosed() ? ", closed" : "") + "]";
  }
}
