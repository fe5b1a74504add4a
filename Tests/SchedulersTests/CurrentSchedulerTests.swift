import Dispatch
import SchedulerProbes
import Schedulers
import Testing

@Suite struct CurrentSchedulerTests {
    @Test func isNilOnAFreshThread() {
        #expect(onFreshThread { CurrentScheduler.value == nil } == true)
    }

    @Test func runRestoresThePreviousValueAcrossNesting() {
        let outer = TestScheduler(name: "outer")
        let inner = TestScheduler(name: "inner")
        let seen = onFreshThread { () -> [String] in
            var seen: [String] = []
            CurrentScheduler.run(as: outer) {
                seen.append(CurrentScheduler.value?.name ?? "nil")
                CurrentScheduler.run(as: inner) { seen.append(CurrentScheduler.value?.name ?? "nil") }
                seen.append(CurrentScheduler.value?.name ?? "nil")
            }
            seen.append(CurrentScheduler.value?.name ?? "nil")
            return seen
        }
        #expect(seen == ["outer", "inner", "outer", "nil"])
    }

    @Test func hopsBetweenQueueSchedulersSeeTheRightScheduler() {
        let a = QueueScheduler(name: "A")
        let b = QueueScheduler(name: "B")
        let seen = Recorder<String>()
        let done = Signal()
        a.schedule {
            seen.record(CurrentScheduler.value?.name ?? "nil")
            b.schedule {
                seen.record(CurrentScheduler.value?.name ?? "nil")
                a.schedule {
                    seen.record(CurrentScheduler.value?.name ?? "nil")
                    done.fire()
                }
            }
        }
        #expect(done.wait())
        #expect(seen.all == ["A", "B", "A"])
    }

    @Test func threadOfADispatchWorkerIsClearedAfterTheAction() {
        // A serial queue with no target reuses worker threads; after our action the same
        // worker must again see no current scheduler.
        let scheduler = QueueScheduler(name: "worker")
        let after = Lock<Bool?>(nil)
        let done = Signal()
        let plain = DispatchQueue(label: "plain", target: scheduler.queue)
        scheduler.schedule {}
        plain.async {
            after.withLock { $0 = CurrentScheduler.value == nil }
            done.fire()
        }
        #expect(done.wait())
        #expect(after.withLock { $0 } == true)
    }
}
