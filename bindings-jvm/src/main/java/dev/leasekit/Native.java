package dev.leasekit;

/**
 * The JNI entry points of {@code libleasekit_jvm} (Rust crate {@code leasekit-jvm}). Leases,
 * constraints and results cross as JSON text, decimals as strings, instants as {@code (epochSecond,
 * nano)} or decimal epoch nanoseconds. Errors arrive as {@link LeaseException}s thrown by the
 * native side.
 */
final class Native {
  static {
    NativeLibrary.load();
  }

  private Native() {}

  static native boolean isValidCapabilityName(String name);

  static native boolean isReservedCapabilityName(String name);

  static native String canonicalizeTarget(String capability, String target);

  static native String validatePattern(String capability, String pattern);

  static native boolean matchPattern(String capability, String pattern, String target);

  static native String leaseCanonical(String leaseJson);

  static native String leaseBudget(String leaseJson);

  static native void checkSubset(String childJson, String parentJson, String optionsJson);

  static native boolean isSubset(String childJson, String parentJson, String optionsJson);

  static native String parseBudgetAmountJson(String entry);

  static native String parseAmountText(String text);

  static native String sumBudgetEntriesJson(String entriesJson);

  static native String parseExpiresAtNanos(String text);

  static native void validateConstraints(String constraintsJson, long epochSecond, int nano);

  static native String constraintsCanonical(String constraintsJson);

  static native String narrow(String requestedJson, String ceilingJson);

  static native String narrowConstraintsJson(String requestedJson, String ceilingJson);

  /** With {@code systemClock} the guard reads the system clock itself; see below. */
  static native long guardNew(
      String leaseJson,
      String constraintsJson,
      long graceMillis,
      boolean allowAnyModel,
      boolean systemClock);

  // The guard calls below take the caller's instant as (epochSecond, nano); nano -1 passes none
  // (only for a guard created with systemClock, which reads the clock itself).

  /** The reserved capability names, one per line; a name's index is its capabilityCode. */
  static native String reservedCapabilities();

  /**
   * The canonical target, or {@code null} when {@code target} itself is canonical. Each length is
   * the {@code length()} of its string (saves the native side a JNI call per string); a {@code
   * capabilityCode} of 0 or more says {@code capability} is that reserved name (see {@link
   * #reservedCapabilities}), which the native side then need not read; -1 means "read it".
   */
  static native String guardAuthorize(
      long handle,
      long epochSecond,
      int nano,
      String capability,
      int capabilityCode,
      int capabilityLength,
      String target,
      int targetLength);

  /** As {@link #guardAuthorize} for {@code model.use}. */
  static native String guardAuthorizeModel(
      long handle, long epochSecond, int nano, String model, int modelLength);

  static native String guardRecordMetric(
      long handle, long epochSecond, int nano, String name, String value, String unit);

  static native String guardReserve(
      long handle, long epochSecond, int nano, String currency, String amount);

  static native String guardRemaining(long handle);

  static native long guardDelegate(
      long handle, long epochSecond, int nano, String childJson, String childConstraintsJson);

  static native String guardClose(long handle);

  static native String guardExpiresAt(long handle);

  static native void guardFree(long handle);

  static native String agentfileCheck(String text, boolean compat);

  // ---- the parsed Agentfile (agentfile.rs); handles owned by NativeHandle ----

  static native long agentfileParse(String text, boolean compat);

  static native void agentfileFree(long handle);

  static native String agentfileToJson(long handle);

  /** Parse plus lint diagnostics, a JSON array. */
  static native String agentfileLint(long handle);

  /** The derived lease's canonical JSON. */
  static native String agentfileLease(long handle);

  static native String agentfileLockfileJson(long handle);

  static native String agentfilePackageDigest(long handle);

  static native void agentfileCheckInheritance(long parent, long child);

  /** The Cedar decision {@code {"allowed","determining","errors"}}. */
  static native String agentfileEvaluatePolicy(
      long handle, String principal, String action, String resource, String contextJson);

  /** Panics inside Rust on purpose; the binding's tests prove it arrives as an exception. */
  static native void panicForTest();

  /** As {@link #panicForTest}, through the error wrapper of the authorize calls. */
  static native void panicForTestRaw();

  static native boolean guardIsExhausted(long handle);

  static native String leaseLint(String leaseJson);

  // ---- the embedded governor (governor.rs); handles owned by NativeHandle ----

  static native long governorOpen(String store, String policyJson, String optionsJson);

  /** The strict call: the response payload JSON, or an exception. */
  static native String governorCall(long handle, String command, String payloadJson);

  /** The wire dispatcher: the response envelope JSON. */
  static native String governorHandle(long handle, String command, String payloadJson);

  static native byte[] governorHandleFrame(long handle, byte[] frame);

  static native void governorSetTime(long handle, String time);

  static native void governorAdvanceMillis(long handle, long millis);

  static native String governorTime(long handle);

  static native void governorClose(long handle);

  static native void governorFree(long handle);

  /** The request envelope of one frame as JSON. */
  static native String decodeFrame(byte[] frame);

  // ---- the daemon client (client.rs) ----

  static native long clientConnect(String socket, long timeoutMillis, String fallback);

  static native String clientCall(long handle, String command, String payloadJson);

  static native String clientHandle(long handle, String command, String payloadJson);

  static native void clientClose(long handle);

  static native void clientFree(long handle);
}
