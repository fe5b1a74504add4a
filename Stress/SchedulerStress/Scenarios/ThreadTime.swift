import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

/// Processor-time clocks, which stand still while a thread waits or is preempted.
enum ThreadTime {
    /// How many times the kernel took a core from one of this process's threads while it
    /// could still run (involuntary context switches, summed over the threads).
    static func processPreemptions() -> Int {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage.ru_nivcsw
    }

    /// Nanoseconds of processor time this thread has used: it stands still while the thread
    /// waits or is preempted.
    static func processorNanoseconds() -> UInt64 { nanoseconds(CLOCK_THREAD_CPUTIME_ID) }

    /// Nanoseconds of processor time all this process's threads have used.
    static func processNanoseconds() -> UInt64 { nanoseconds(CLOCK_PROCESS_CPUTIME_ID) }

    private static func nanoseconds(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
