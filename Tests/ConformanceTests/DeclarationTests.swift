import Dispatch
import SchedulerConformance
import SchedulerProbes
import Schedulers
import Testing

/// A serial pool that shuts down when its last reference goes: what is still pending is
/// cancelled, not run. Correct, and the other choice from a Dispatch queue's.
private final class ShuttingDownPool: Scheduler {
    let name = "shutting-down-pool"
    var capabilities: SchedulerCapabilities { [.asynchronous, .serial, .cancellation, .tracksCurrent] }
    private let queue = DispatchQueue(label: "shutting-down-pool")

    var now: SchedulerTime { (try? SchedulerTime(nanoseconds: DispatchTime.now().uptimeNanoseconds)) ?? .distantFuture }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let handle = BooleanDisposable()
        // Pending work does not keep the pool: once it is gone, its work is cancelled.
        queue.async { [weak self] in
            guard let self, !handle.isDisposed else { return }
            CurrentScheduler.run(as: self, action)
        }
        return handle
    }
}

/// THR-2 holds a subject to the policy it declares for work pending at release, and a
/// failure names the declaration; undeclared, either policy passes.
@Suite struct PendingWorkDeclarationTests {
    private static func thr2(_ subject: ConformanceSubject) -> RuleResult {
        ConformanceRunner.run(subject, rules: [RuleCatalogue.rule(.thr2)], timing: MutantKillTests.timing)[0]
    }

    private static let pool = ConformanceSubject(name: "shutting-down-pool") { ShuttingDownPool() }
    private static let queue = ConformanceSubject(name: "queue") { QueueScheduler(name: "queue") }

    @Test func aPoolThatDropsItsWorkPassesWhenItSaysSo() {
        #expect(Self.thr2(Self.pool).status == .passed)
        #expect(Self.thr2(Self.pool.declaring(pendingWorkOnRelease: .dropped)).status == .passed)
        let wrong = Self.thr2(Self.pool.declaring(pendingWorkOnRelease: .runs))
        #expect(wrong.status == .failed)
        #expect(wrong.message?.contains("declares `pendingWorkOnRelease: .runs`") == true, "\(wrong.message ?? "")")
    }

    @Test func aQueueThatRunsItsWorkPassesWhenItSaysSo() {
        #expect(Self.thr2(Self.queue.declaring(pendingWorkOnRelease: .runs)).status == .passed)
        let wrong = Self.thr2(Self.queue.declaring(pendingWorkOnRelease: .dropped))
        #expect(wrong.status == .failed)
        #expect(wrong.message?.contains("declares `pendingWorkOnRelease: .dropped`") == true, "\(wrong.message ?? "")")
    }
}
