#if SCHEDULERS_TSAN
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #elseif canImport(Darwin)
        import Darwin
    #endif
#else
    import Synchronization
#endif

/// The one lock of the package: a value that is only reached while holding its lock.
///
/// It is `Synchronization.Mutex`, except in `make tsan`'s build (`-DSCHEDULERS_TSAN`),
/// where it is a pthread mutex. ThreadSanitizer does not see the futex under `Mutex` as a
/// lock, so it reports every guarded access as a race; a pthread mutex it intercepts, so its
/// reports are real races again. Keeping the swap in this file is what lets every module
/// use one spelling and the sanitizer build change nothing else.
///
/// Like `Mutex` it is not recursive: locking it again on the thread that holds it traps.
package struct Lock<State: ~Copyable>: ~Copyable {
    #if SCHEDULERS_TSAN
        @usableFromInline package let mutex: UnsafeMutablePointer<pthread_mutex_t>
        @usableFromInline package let state: UnsafeMutablePointer<State>

        /// A lock guarding `initial`.
        @inlinable
        package init(_ initial: consuming sending State) {
            state = .allocate(capacity: 1)
            state.initialize(to: initial)
            mutex = .allocate(capacity: 1)
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            // An error-checking mutex reports a recursive lock instead of deadlocking, so it
            // traps where `Mutex` traps.
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
            let made = pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
            precondition(made == 0, "Lock: pthread_mutex_init failed (\(made))")
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
            state.deinitialize(count: 1)
            state.deallocate()
        }

        /// Runs `body` with exclusive access to the state and returns what it returns.
        @inlinable
        package borrowing func withLock<Result: ~Copyable, E: Error>(
            _ body: (inout sending State) throws(E) -> sending Result
        ) throws(E) -> sending Result {
            let locked = pthread_mutex_lock(mutex)
            precondition(locked != EDEADLK, "Lock: locked again on the thread that holds it")
            precondition(locked == 0, "Lock: pthread_mutex_lock failed (\(locked))")
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }

        /// Runs `body` with exclusive access when the lock is free at once; nil when it is held,
        /// by this thread too.
        @inlinable
        package borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
            _ body: (inout sending State) throws(E) -> sending Result
        ) throws(E) -> sending Result? {
            guard pthread_mutex_trylock(mutex) == 0 else { return nil }
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    #else
        @usableFromInline package let mutex: Mutex<State>

        /// A lock guarding `initial`.
        @inlinable
        package init(_ initial: consuming sending State) { mutex = Mutex(initial) }

        /// Runs `body` with exclusive access to the state and returns what it returns.
        @inlinable
        package borrowing func withLock<Result: ~Copyable, E: Error>(
            _ body: (inout sending State) throws(E) -> sending Result
        ) throws(E) -> sending Result {
            try mutex.withLock(body)
        }

        /// Runs `body` with exclusive access when the lock is free at once; nil when it is held,
        /// by this thread too.
        @inlinable
        package borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
            _ body: (inout sending State) throws(E) -> sending Result
        ) throws(E) -> sending Result? {
            try mutex.withLockIfAvailable(body)
        }
    #endif
}

// Safe to share: the state is only reached under the lock, and handed in and out as `sending`.
extension Lock: @unchecked Sendable where State: ~Copyable {}

/// What the build knows about ThreadSanitizer: `make tsan` builds with `-DSCHEDULERS_TSAN`.
package enum ThreadSanitizerBuild {
    #if SCHEDULERS_TSAN
        /// Whether this is `make tsan`'s build.
        package static let isEnabled = true
        /// How much slower code runs under the sanitizer (typically 5–15×): wall-clock bounds that
        /// correct code must meet are multiplied by it, so the sanitizer's slowdown is not a failure.
        package static let slowdown = 10.0
    #else
        /// Whether this is `make tsan`'s build.
        package static let isEnabled = false
        /// How much slower code runs under the sanitizer: 1 outside it.
        package static let slowdown = 1.0
    #endif
}
