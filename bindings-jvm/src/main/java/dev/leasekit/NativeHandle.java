package dev.leasekit;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * Owns one native guard handle. Calls run under a read lock (so many threads may call at once),
 * freeing runs under the write lock, exactly once: by {@link #release} or, if this object becomes
 * unreachable first, by the shared {@link Cleaner}. The cleaner watches this object (not the guard
 * that holds it), and {@link #call} keeps it reachable until the native call returns, so the
 * cleaner can never free a handle that is in use.
 */
final class NativeHandle {
  private static final Cleaner CLEANER = Cleaner.create();

  /** Handles created and not yet freed (for tests of the cleaner). */
  static final AtomicLong LIVE = new AtomicLong();

  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private final Cleaner.Cleanable cleanable;
  private final long handle;
  private boolean released;

  /** Takes ownership of {@code handle}. */
  NativeHandle(long handle) {
    this.handle = handle;
    LIVE.incrementAndGet();
    this.cleanable = CLEANER.register(this, new Free(handle));
  }

  /**
   * Runs {@code call} with the live handle; after release it throws LeaseExpiredException, as the
   * core answers for a closed guard.
   */
  <T> T call(LongFunction<T> call) {
    lock.readLock().lock();
    try {
      if (released) {
        throw new LeaseExpiredException("the LeaseGuard is closed");
      }
      return call.apply(handle);
    } finally {
      lock.readLock().unlock();
      Reference.reachabilityFence(this);
    }
  }

  /** Runs {@code beforeFree} on the live handle, then frees it; later calls are no-ops. */
  void release(LongConsumer beforeFree) {
    lock.writeLock().lock();
    try {
      if (released) {
        return;
      }
      released = true;
      try {
        beforeFree.accept(handle);
      } finally {
        cleanable.clean();
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Whether {@link #release} ran. */
  boolean isReleased() {
    lock.readLock().lock();
    try {
      return released;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The cleaning action; holds only the handle, never the owner. */
  private static final class Free implements Runnable {
    private final long handle;

    Free(long handle) {
      this.handle = handle;
    }

    @Override
    public void run() {
      LIVE.decrementAndGet();
      Native.guardFree(handle);
    }
  }
}
