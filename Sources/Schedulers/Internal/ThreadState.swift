import DequeModule
import Foundation

// Every raw C call of the library sits in this file.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the library keeps per thread: the current scheduler and the trampoline's queue.
///
/// One object per thread, created on first use and released by the thread-specific-data
/// destructor when the thread exits. Only its own thread ever touches it, which is why it
/// needs no lock.
final class ThreadState {
    /// The scheduler whose action is running on this thread, if any. Not retained: it is
    /// set only by `CurrentScheduler.run(as:)`, whose caller holds the scheduler for the
    /// whole run, and reading it yields a strong reference; so the hot path of every
    /// action pays no reference counting for it.
    unowned(unsafe) var current: (any Scheduler)?
    /// Whether a trampoline drain is running on this thread.
    var trampolineActive = false
    /// Actions and recursion runs scheduled on the trampoline during the running drain, FIFO.
    var trampolineQueue = Deque<TrampolineEntry>()
    /// The trampoline recursion whose block is running on this thread, and how many
    /// reschedules that block has made so far (queued once it returns). Not retained: the
    /// drain holds the recursion while its block runs.
    unowned(unsafe) var executingRecursion: TrampolineRecursion?
    var deferredReschedules = 0
    /// Whether this is the process's main thread; computed once, it never changes.
    let isMainThread: Bool

    private init() {
        isMainThread = ThreadState.callerIsMainThread()
    }

    /// This thread's state.
    static var local: ThreadState {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<ThreadState>.fromOpaque(raw).takeUnretainedValue()
        }
        let state = ThreadState()
        // Retained here, released by the key's destructor when the thread exits.
        pthread_setspecific(key, Unmanaged.passRetained(state).toOpaque())
        return state
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { raw in
            #if canImport(Darwin)
                Unmanaged<ThreadState>.fromOpaque(raw).release()
            #else
                if let raw { Unmanaged<ThreadState>.fromOpaque(raw).release() }
            #endif
        }
        precondition(status == 0, "pthread_key_create failed with \(status): out of thread-specific keys")
        return key
    }()

    private static func callerIsMainThread() -> Bool {
        // Glibc does not export gettid(); Foundation knows the main thread on every platform.
        Thread.isMainThread
    }

    /// Blocks the calling thread until `deadline` on the monotonic clock of `clock`.
    static func sleep(until deadline: SchedulerTime, clock: () -> SchedulerTime) {
        while true {
            let now = clock()
            guard now < deadline else { return }
            let remaining = deadline.nanoseconds - now.nanoseconds
            var request = timespec(tv_sec: Int(remaining / 1_000_000_000), tv_nsec: Int(remaining % 1_000_000_000))
            // Interrupted sleeps and early wake-ups are absorbed by re-reading the clock.
            _ = nanosleep(&request, nil)
        }
    }
}
