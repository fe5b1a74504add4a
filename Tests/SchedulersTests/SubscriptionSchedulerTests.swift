import Foundation
import SchedulerProbes
import Schedulers
import Synchronization
import Testing

@Suite struct SubscriptionSchedulerTests {
    @Test func runsInlineInsideACurrentScheduler() {
        let outer = QueueScheduler(name: "outer")
        let inline = Lock<Bool?>(nil)
        let done = Signal()
        outer.schedule {
            let ran = Atomic<Bool>(false)
            let handle = SubscriptionScheduler.shared.schedule { ran.store(true, ordering: .relaxed) }
            inline.withLock { $0 = ran.load(ordering: .relaxed) && handle == nil }
            done.fire()
        }
        #expect(done.wait())
        #expect(inline.withLock { $0 } == true)
    }

    @Test func goesToTheBackgroundSchedulerWithoutOne() {
        let observed = onFreshThread { () -> Bool in
            let done = Signal()
            let current = Lock<(any Scheduler)?>(nil)
            let callerThread = Thread.current.hash
            let otherThread = Atomic<Bool>(false)
            SubscriptionScheduler.shared.schedule {
                current.withLock { $0 = CurrentScheduler.value }
                otherThread.store(Thread.current.hash != callerThread, ordering: .relaxed)
                done.fire()
            }
            return done.wait()
                && current.withLock { $0 } === SubscriptionScheduler.shared.background
                && otherThread.load(ordering: .relaxed)
        }
        #expect(observed == true)
    }

    @Test func timersGoToTheCurrentScheduler() throws {
        let outer = QueueScheduler(name: "outer")
        let seen = Lock<(any Scheduler)?>(nil)
        let done = Signal()
        outer.schedule {
            _ = try? SubscriptionScheduler.shared.schedule(after: .milliseconds(1)) {
                seen.withLock { $0 = CurrentScheduler.value }
                done.fire()
            }
        }
        #expect(done.wait())
        #expect(seen.withLock { $0 } === outer)
    }
}
