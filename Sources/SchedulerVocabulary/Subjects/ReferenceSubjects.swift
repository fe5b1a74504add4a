import Dispatch
import Schedulers

/// The package's own schedulers as subjects: what `make conformance` gates on.
public enum ReferenceSubjects {
    /// Every reference scheduler, including a queue scheduler on a concurrent target
    /// (FIFO and exclusivity must survive a concurrent target queue), and the bridges to
    /// Swift concurrency: the executor on a queue scheduler, the executor and the clock of
    /// a test scheduler.
    public static let all: [ConformanceSubject] = [
        ConformanceSubject(name: "immediate", origin: .reference) { ImmediateScheduler.shared },
        // Dispatch keeps a queue with work alive: what is pending at release runs.
        ConformanceSubject(name: "queue", origin: .reference) { QueueScheduler(priority: .default, name: "queue") }
            .declaring(.pendingWorkOnRelease(.runs)),
        ConformanceSubject(name: "queue-concurrent-target", origin: .reference) {
            QueueScheduler(
                name: "queue-concurrent-target",
                targetQueue: DispatchQueue(label: "concurrent target", attributes: .concurrent))
        }
        .benchmarked { ($0 as! QueueScheduler).targetQueue },
        ConformanceSubject(name: "concurrent", origin: .reference) { ConcurrentQueueScheduler(name: "concurrent") }
            .declaring(.pendingWorkOnRelease(.runs)),
        ConformanceSubject(name: "main", origin: .reference) { MainThreadScheduler.shared },
        ConformanceSubject(name: "subscription", origin: .reference) { SubscriptionScheduler.shared },
        ConformanceSubject(name: "trampoline", origin: .reference) { TrampolineScheduler.shared },
        // Nobody drives a released test scheduler: its pending work never runs.
        ConformanceSubject(name: "test", origin: .reference) { TestScheduler(name: "test") }
            .declaring(.pendingWorkOnRelease(.dropped)),
        ConformanceSubject(name: "queue-executor", origin: .reference) {
            ExecutorUnderTest(QueueScheduler(priority: .default, name: "queue-executor").executor)
        },
        ConformanceSubject(name: "test-executor", origin: .reference) {
            ExecutorUnderTest(TestScheduler(name: "test-executor").executor)
        },
        ConformanceSubject(name: "virtual-clock", origin: .reference) {
            ClockUnderTest(TestScheduler(name: "virtual-clock").clock)
        },
    ]
}
