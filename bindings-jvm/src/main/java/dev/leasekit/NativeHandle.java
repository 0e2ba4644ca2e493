package dev.leasekit;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Owns one native handle (a guard, an embedded governor or a governor client), without a lock on
 * the call path.
 *
 * <p>Lifetime rule: the native memory is freed only by the shared {@link Cleaner}, once this object
 * is unreachable, and never by {@link #release}. {@link #call} keeps this object reachable until
 * the native call returns ({@link Reference#reachabilityFence}), so no call can ever run on freed
 * memory, however it races with {@link #release} or with the garbage collector.
 *
 * <p>{@link #release} runs its close action exactly once (the core's close: the guard refuses
 * further calls with {@code LEASE_EXPIRED} and a child returns its unspent budget) and marks the
 * handle released, after which {@link #call} throws {@link LeaseExpiredException} without reaching
 * native code. A call that checked the flag just before a concurrent release still runs on live
 * memory; the core, whose close is atomic, answers it either normally (it ran first) or with {@code
 * LEASE_EXPIRED}. So a closed guard holds its native memory (the lease, a few hundred bytes to
 * kilobytes) until it is garbage collected, in exchange for calls that take no lock.
 *
 * <p>(The previous design took a read lock per call and freed under the write lock in {@link
 * #release}; the lock cost more than the rest of the Java side of an authorize call.)
 */
final class NativeHandle {
  private static final Cleaner CLEANER = Cleaner.create();

  /** Handles created and not yet freed (for tests of the cleaner). */
  static final AtomicLong LIVE = new AtomicLong();

  private final long handle;

  /** The exception of a call after {@link #release}. */
  private final Supplier<? extends LeaseException> closedError;

  /** Set once by {@link #release}; read by every call. */
  private volatile boolean released;

  /** Takes ownership of a guard {@code handle}. */
  NativeHandle(long handle) {
    this(handle, Native::guardFree, () -> new LeaseExpiredException("the LeaseGuard is closed"));
  }

  /**
   * Takes ownership of {@code handle}, freed by {@code free} (a static native: it must not refer to
   * the owner, or the owner never becomes unreachable); a call after {@link #release} throws {@code
   * closedError}'s exception.
   */
  NativeHandle(long handle, LongConsumer free, Supplier<? extends LeaseException> closedError) {
    this.handle = handle;
    this.closedError = closedError;
    LIVE.incrementAndGet();
    CLEANER.register(this, new Free(handle, free));
  }

  /**
   * Runs {@code call} with the live handle; after release it throws the closed error (for a guard
   * LeaseExpiredException, as the core answers for a closed guard).
   */
  <T> T call(LongFunction<T> call) {
    if (released) {
      throw closedError.get();
    }
    try {
      return call.apply(handle);
    } finally {
      // The memory behind `handle` lives as long as this object: keep it until the call is done.
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Runs {@code close} on the live handle, once (later and concurrent calls are no-ops); the memory
   * is freed later, by the Cleaner.
   */
  void release(LongConsumer close) {
    synchronized (this) {
      if (released) {
        return;
      }
      released = true;
    }
    try {
      close.accept(handle);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Whether {@link #release} ran. */
  boolean isReleased() {
    return released;
  }

  /** The cleaning action; holds only the handle, never the owner. */
  private record Free(long handle, LongConsumer free) implements Runnable {
    @Override
    public void run() {
      LIVE.decrementAndGet();
      free.accept(handle);
    }
  }
}
