package dev.leasekit;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * The embedded governor (docs/governor.md): LeaseGate's admission protocol over an in-memory or
 * SQLite store, decided by the core. Safe to share between threads (SQLite commits of concurrent
 * calls are grouped). Close it when done ({@code try}-with-resources).
 *
 * <pre>{@code
 * try (Governor gov = Governor.open("sqlite:/var/lib/app/gov.db", "{}", null)) {
 *   Map<String, Object> grant =
 *       gov.acquire(Map.of("actorId", "alice", "workspaceId", "ws1", "modelId", "gpt-4o-mini",
 *           "estimatedPromptTokens", 100, "maxOutputTokens", 50, "estimatedCostCents", 5));
 *   if (Boolean.TRUE.equals(grant.get("granted"))) {
 *     gov.release(Map.of("leaseId", grant.get("leaseId"), "actualCostCents", 4));
 *   }
 * }
 * }</pre>
 *
 * <p>The typed methods and {@link #handle} are those of {@link GovernorApi}; {@link #handleFrame}
 * and {@link #decodeFrame} speak the length-prefixed frames of the wire protocol.
 */
public final class Governor implements GovernorApi {
  private final NativeHandle handle;

  private Governor(long nativeHandle) {
    this.handle =
        new NativeHandle(
            nativeHandle,
            Native::governorFree,
            () -> new InvalidRequestException("the governor is closed"));
  }

  /**
   * Opens an in-memory governor or a SQLite store with the default policy and options.
   *
   * @param store {@code "memory"}, {@code "sqlite:PATH"} or a SQLite file path
   * @return the governor
   */
  public static Governor open(String store) {
    return open(store, (String) null, (String) null);
  }

  /**
   * Opens a governor.
   *
   * @param store {@code "memory"}, {@code "sqlite:PATH"} or a SQLite file path; a reopened SQLite
   *     store keeps its leases, approvals, idempotency records, policy and audit chain
   * @param policyJson the policy JSON object ({@code null}: the default policy)
   * @param optionsJson the options JSON object ({@code null}: defaults): the construction options
   *     (limits, {@code allowedPublicKeysBase64}, {@code requireSignedBundles}) plus {@code
   *     synchronous} ({@code "full"}, the default, or {@code "normal"}; SQLite only) and, for
   *     tests, {@code manualClock} (an RFC 3339 UTC time: a manual clock starting there) and {@code
   *     ids} ({@code "deterministic"}: {@code lease-1}, {@code approval-1}, ...)
   * @return the governor
   * @throws InvalidRequestException if the store, policy or options are invalid
   */
  public static Governor open(String store, String policyJson, String optionsJson) {
    Objects.requireNonNull(store, "store");
    return new Governor(Native.governorOpen(store, policyJson, optionsJson));
  }

  /**
   * Opens a governor with the policy and options as maps (plain JSON data, see {@link
   * GovernorApi}).
   *
   * @param store as {@link #open(String, String, String)}
   * @param policy the policy ({@code null}: the default policy)
   * @param options the options ({@code null}: defaults)
   * @return the governor
   */
  public static Governor open(String store, Map<String, ?> policy, Map<String, ?> options) {
    return open(
        store,
        policy == null ? null : GovernorJson.payload(policy),
        options == null ? null : GovernorJson.payload(options));
  }

  /**
   * Opens a governor on a SQLite file.
   *
   * @param path the SQLite file (created if missing)
   * @param policyJson as {@link #open(String, String, String)}
   * @param optionsJson as {@link #open(String, String, String)}
   * @return the governor
   */
  public static Governor open(Path path, String policyJson, String optionsJson) {
    Objects.requireNonNull(path, "path");
    return open("sqlite:" + path, policyJson, optionsJson);
  }

  @Override
  public String callJson(String command, String payloadJson) {
    Objects.requireNonNull(command, "command");
    return handle.call(h -> Native.governorCall(h, command, payloadJson));
  }

  @Override
  public String handle(String command, String payloadJson) {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(payloadJson, "payloadJson");
    return handle.call(h -> Native.governorHandle(h, command, payloadJson));
  }

  /**
   * One request frame (4-byte little-endian length + envelope JSON) in, the response frame out; a
   * malformed frame is answered with a failure envelope.
   *
   * @param frame the request frame
   * @return the response frame
   */
  public byte[] handleFrame(byte[] frame) {
    Objects.requireNonNull(frame, "frame");
    return handle.call(h -> Native.governorHandleFrame(h, frame));
  }

  /**
   * Decodes one request frame.
   *
   * @param frame the frame bytes
   * @return the request envelope: {@code protocolVersion}, {@code command}, {@code payloadJson}
   * @throws InvalidRequestException if the frame is malformed (bad length, not the envelope)
   */
  public static Map<String, Object> decodeFrame(byte[] frame) {
    Objects.requireNonNull(frame, "frame");
    return GovernorJson.answer(Native.decodeFrame(frame));
  }

  /**
   * Sets the manual clock (only for a governor opened with {@code manualClock}).
   *
   * @param time the new time
   * @throws InvalidRequestException without a manual clock
   */
  public void setTime(Instant time) {
    Objects.requireNonNull(time, "time");
    setTime(time.toString());
  }

  /**
   * Sets the manual clock to an RFC 3339 UTC time.
   *
   * @param time e.g. {@code "2026-03-01T12:00:00Z"}
   * @throws InvalidRequestException without a manual clock or for a malformed time
   */
  public void setTime(String time) {
    Objects.requireNonNull(time, "time");
    handle.call(
        h -> {
          Native.governorSetTime(h, time);
          return null;
        });
  }

  /**
   * Moves the manual clock forward.
   *
   * @param millis milliseconds, not negative
   * @throws InvalidRequestException without a manual clock
   */
  public void advanceTime(long millis) {
    handle.call(
        h -> {
          Native.governorAdvanceMillis(h, millis);
          return null;
        });
  }

  /**
   * The manual clock's time.
   *
   * @return the time
   * @throws InvalidRequestException without a manual clock
   */
  public Instant time() {
    return Instant.parse(handle.call(Native::governorTime));
  }

  /**
   * Closes this governor; the store closes once no call is still using it. Later calls throw {@link
   * InvalidRequestException}. Idempotent.
   */
  @Override
  public void close() {
    handle.release(Native::governorClose);
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
    return isClosed() ? "Governor[closed]" : "Governor";
  }
}
