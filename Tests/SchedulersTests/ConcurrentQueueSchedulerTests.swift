import Dispatch
import SchedulerProbes
import Schedulers
import Synchronization
import Testing

@Suite struct ConcurrentQueueSchedulerTests {
    @Test func actionsReallyOverlapAndEachWorkerSeesItsScheduler() {
        let scheduler = ConcurrentQueueScheduler()
        let first = Signal()
        let second = Signal()
        let results = Recorder<Bool>()
        let done = Signal()
        // A rendezvous: each action waits for the other to have started, which only
        // succeeds if both run at once; each checks the current scheduler before and after.
        for (mine, theirs) in [(first, second), (second, first)] {
            scheduler.schedule {
                let before = CurrentScheduler.value === scheduler
                mine.fire()
                let met = theirs.wait()
                results.record(before && met && CurrentScheduler.value === scheduler)
                done.fire()
            }
        }
        #expect(done.wait() && done.wait())
        #expect(results.all == [true, true])
    }

    @Test func runsEveryActionOnceFromManyProducers() {
        let scheduler = ConcurrentQueueScheduler()
        let runs = Atomic<Int>(0)
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<1_000 {
                group.enter()
                scheduler.schedule {
                    runs.wrappingAdd(1, ordering: .relaxed)
                    group.leave()
                }
            }
        }
        #expect(group.wait(timeout: .now() + mustHappen) == .success)
        #expect(runs.load(ordering: .relaxed) == 4_000)
    }
}
