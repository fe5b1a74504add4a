import Dispatch
import Foundation
import SchedulerVocabulary
import Schedulers
import Synchronization

/// A main-thread scheduler shaped like RxSwift's `MainScheduler`: called on the main thread,
/// outside its own actions, with nothing of its own queued, `schedule` runs the action inline;
/// otherwise it queues it on the main queue. Correct when it declares
/// `.mainThreadSchedule(.inlineWhenIdle)`; the fault `overtakes` runs inline on the main thread
/// outside its actions even while work queued from other threads is pending.
final class InlineOnMainMutant: Scheduler, Sendable {
    let name: String
    private let overtakes: Bool
    /// Actions queued and not yet finished, the one running included.
    private let pending = Atomic<Int>(0)
    /// Whether one of its actions is running (only ever on the main thread).
    private let running = Atomic<Bool>(false)

    var capabilities: SchedulerCapabilities { [.asynchronous, .serial, .mainThread, .tracksCurrent] }
    var now: SchedulerTime { MainThreadScheduler.shared.now }

    init(_ name: String, overtakes: Bool) {
        self.name = name
        self.overtakes = overtakes
    }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let earlier = pending.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        let idle = overtakes ? !running.load(ordering: .relaxed) : earlier == 0
        if Thread.isMainThread, idle {
            run(action)
            return nil
        }
        let handle = BooleanDisposable()
        DispatchQueue.main.async { [self] in
            if handle.isDisposed {
                pending.wrappingSubtract(1, ordering: .sequentiallyConsistent)
            } else {
                run(action)
            }
        }
        return handle
    }

    private func run(_ action: @escaping SchedulerAction) {
        let outer = running.exchange(true, ordering: .relaxed)
        CurrentScheduler.run(as: self, action)
        running.store(outer, ordering: .relaxed)
        pending.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }
}

/// A main-thread scheduler on the main queue, correct but for one fault.
final class FaultyMainMutant: Scheduler, Sendable {
    enum Fault: String, Sendable {
        /// Fires delayed actions from a background timer queue, off the main thread.
        case timersOffMain = "main-timers-off-main"
        /// Sends work scheduled from inside one of its actions to a background queue, to keep
        /// the main thread free.
        case nestedOffMain = "main-nested-schedule-off-main"
        /// Hands an action scheduled on the main thread, outside its own actions, straight to
        /// the main queue ("already on main"), without the current scheduler.
        case mainCallersSkipCurrent = "main-callers-skip-current"
    }

    let fault: Fault
    var name: String { fault.rawValue }
    var capabilities: SchedulerCapabilities { [.asynchronous, .serial, .mainThread, .tracksCurrent, .timers] }
    var now: SchedulerTime { MainThreadScheduler.shared.now }

    init(_ fault: Fault) { self.fault = fault }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let inside = CurrentScheduler.value === self
        if fault == .mainCallersSkipCurrent && Thread.isMainThread && !inside {
            DispatchQueue.main.async(execute: action)
            return nil
        }
        let queue = fault == .nestedOffMain && inside ? DispatchQueue.global() : .main
        queue.async { CurrentScheduler.run(as: self, action) }
        return nil
    }

    @discardableResult
    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let queue = fault == .timersOffMain ? DispatchQueue.global() : .main
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1))) {
            CurrentScheduler.run(as: self, action)
        }
        return nil
    }
}

extension Mutants {
    /// The main-thread mutants: ORD-5 judges them from the main thread, which only a process
    /// that drives it (the `conformance` command's worker, XCTest) gives.
    static let mainThread: [Mutant] = [
        faulty(FaultyMainMutant.Fault.timersOffMain, "fires delayed actions off the main thread", .cur8) {
            FaultyMainMutant($0)
        },
        faulty(
            FaultyMainMutant.Fault.nestedOffMain, "runs work scheduled from inside its actions off the main thread",
            .cur8
        ) { FaultyMainMutant($0) },
        faulty(
            FaultyMainMutant.Fault.mainCallersSkipCurrent,
            "runs work scheduled on the main thread, outside its actions, without the current scheduler", .cur8
        ) { FaultyMainMutant($0) },
        mutant("main-inline-when-idle", "runs inline on the main thread with nothing queued, undeclared", .ord5) {
            InlineOnMainMutant($0, overtakes: false)
        },
        mutant(
            "main-inline-overtaking",
            "declares inline when idle, and runs inline on the main thread behind queued work too", .ord5,
            declaring: .mainThreadSchedule(.inlineWhenIdle)
        ) { InlineOnMainMutant($0, overtakes: true) },
    ]

    /// RxSwift's `MainScheduler`'s shape, correct and declared: for the tests of the
    /// declaration.
    public static let inlineWhenIdleMain = ConformanceSubject(
        name: "declared-main-inline-when-idle", origin: .thirdParty
    ) {
        InlineOnMainMutant("declared-main-inline-when-idle", overtakes: false)
    }.declaring(.mainThreadSchedule(.inlineWhenIdle))
}
