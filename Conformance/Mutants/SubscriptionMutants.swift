import Dispatch
import Foundation
import SchedulerVocabulary
import Schedulers
import Synchronization

/// The subscription scheduler's faults, one per instance.
final class FaultySubscriptionMutant: Scheduler {
    enum Fault: String, Sendable {
        /// Never runs inline, not even inside a current scheduler.
        case alwaysAsync = "always-async-subscription"
        /// Runs inline even when the calling thread has no current scheduler.
        case inlineWithoutCurrent = "subscription-inline-without-current"
        /// Sends timers to its background scheduler even inside a current scheduler.
        case timersToBackground = "subscription-timers-to-background"
        /// Runs inline actions as itself, hiding the caller's current scheduler.
        case runsAsItself = "subscription-runs-as-itself"
        /// Sends repeating actions to its background scheduler even inside a current scheduler.
        case repeatingToBackground = "subscription-repeating-to-background"
        /// Sends recursion to its background scheduler even inside a current scheduler.
        case recursionToBackground = "subscription-recursion-to-background"
        /// With no current scheduler, hands a delayed action to a global queue's timer, which
        /// runs it with no current scheduler.
        case delayedWithoutCurrent = "subscription-delayed-without-current"
        /// With no current scheduler, runs a recursion as the immediate scheduler does, on the
        /// caller's thread.
        case recursionInlineWithoutCurrent = "subscription-recursion-inline-without-current"
        /// Sends each run of a recursion to the scheduler current where it was asked for, so a
        /// run asked for from a plain thread goes to the background.
        case reschedulesRetarget = "subscription-reschedules-retarget"
        /// Runs inline only outside its own inline runs, to keep the stack shallow: an action
        /// asked for inside one goes to the back of the current scheduler's queue.
        case inlineOneDeep = "subscription-inline-one-deep"
        /// Runs a recursion's late run (asked for once its run returned) inline when the
        /// asking thread has a current scheduler, as it runs plain actions.
        case lateReschedulesInline = "subscription-late-reschedules-inline"
    }

    let fault: Fault
    var name: String { fault.rawValue }
    var capabilities: SchedulerCapabilities { [.subscription, .timers, .repeating] }
    /// Where work goes from a thread with no current scheduler.
    private let background: QueueScheduler
    /// The threads inside one of its inline runs (for `inlineOneDeep`).
    private let inlining = Lock<Set<ObjectIdentifier>>([])

    init(_ fault: Fault) {
        self.fault = fault
        background = QueueScheduler(name: "\(fault.rawValue).background")
    }

    var now: SchedulerTime { background.now }

    private var inlineTarget: (any Scheduler)? {
        fault == .alwaysAsync ? nil : CurrentScheduler.value
    }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        if let current = inlineTarget, fault == .inlineOneDeep {
            let thread = ObjectIdentifier(Thread.current)
            guard inlining.withLock({ $0.insert(thread).inserted }) else { return current.schedule(action) }
            action()
            inlining.withLock { _ = $0.remove(thread) }
            return nil
        }
        if inlineTarget != nil || fault == .inlineWithoutCurrent {
            if fault == .runsAsItself { CurrentScheduler.run(as: self, action) } else { action() }
            return nil
        }
        return background.schedule(action)
    }

    @discardableResult
    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        guard fault == .delayedWithoutCurrent, CurrentScheduler.value == nil else {
            return try target(for: .timers, unless: .timersToBackground).schedule(at: deadline, action)
        }
        let disposable = BooleanDisposable()
        DispatchQueue.global().asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1))) {
            if !disposable.isDisposed { action() }
        }
        return disposable
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        try target(for: .repeating, unless: .repeatingToBackground).schedule(
            at: deadline, repeatingEvery: interval, leeway: leeway, action)
    }

    @discardableResult
    func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (any Disposable)? {
        switch fault {
        case .recursionToBackground: return background.scheduleRecursive(block)
        case .recursionInlineWithoutCurrent where CurrentScheduler.value == nil:
            return ImmediateScheduler.shared.scheduleRecursive(block)
        case .reschedulesRetarget, .lateReschedulesInline: return retargetingRecursion(block)
        default: return (CurrentScheduler.value ?? background).scheduleRecursive(block)
        }
    }

    /// `reschedulesRetarget`: each run goes to the scheduler current where it was asked for
    /// (the background one when none is), queued at the call. `lateReschedulesInline`: runs
    /// go where the first did, except a late one asked for where a scheduler is current, which
    /// runs at once, inside the call.
    private func retargetingRecursion(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void)
        -> any Disposable
    {
        let disposable = BooleanDisposable()
        let first = CurrentScheduler.value ?? background
        let retargets = fault == .reschedulesRetarget
        let target: @Sendable () -> any Scheduler = { [background] in
            retargets ? CurrentScheduler.value ?? background : first
        }
        @Sendable func run() {
            guard !disposable.isDisposed else { return }
            // Asked for inside the run: counted, and queued once it returned (from where it ran).
            let asked = Lock((inBlock: true, count: 0))
            block {
                let late = asked.withLock { asked in
                    if asked.inBlock { asked.count += 1 }
                    return !asked.inBlock
                }
                guard late else { return }
                if !retargets, CurrentScheduler.value != nil { run() } else { target().schedule(run) }
            }
            let count = asked.withLock { asked in
                asked.inBlock = false
                return asked.count
            }
            for _ in 0..<count { target().schedule(run) }
        }
        first.schedule(run)
        return disposable
    }

    /// The current scheduler when it can do `capability`, else the background one; always
    /// the background one with `bypass`.
    private func target(for capability: SchedulerCapabilities, unless bypass: Fault) -> any Scheduler {
        guard fault != bypass, let current = CurrentScheduler.value, current.capabilities.contains(capability) else {
            return background
        }
        return current
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let subscription: [Mutant] = [
        faulty(FaultySubscriptionMutant.Fault.alwaysAsync, "never runs inline", .sub1) { FaultySubscriptionMutant($0) },
        faulty(FaultySubscriptionMutant.Fault.inlineWithoutCurrent, "runs inline with no current scheduler", .sub2) {
            FaultySubscriptionMutant($0)
        },
        faulty(
            FaultySubscriptionMutant.Fault.timersToBackground,
            "sends timers to the background inside a current scheduler", .sub3
        ) { FaultySubscriptionMutant($0) },
        faulty(
            FaultySubscriptionMutant.Fault.repeatingToBackground,
            "sends repeating actions to the background inside a current scheduler", .sub3
        ) { FaultySubscriptionMutant($0) },
        faulty(
            FaultySubscriptionMutant.Fault.recursionToBackground,
            "sends recursion to the background inside a current scheduler", .sub3
        ) { FaultySubscriptionMutant($0) },
        faulty(
            FaultySubscriptionMutant.Fault.runsAsItself, "runs inline actions as itself, hiding the caller's scheduler",
            .sub4
        ) { FaultySubscriptionMutant($0) },
        faulty(
            FaultySubscriptionMutant.Fault.delayedWithoutCurrent,
            "with no current scheduler, runs delayed actions on a global queue's timer, with none current", .sub3
        ) { FaultySubscriptionMutant($0) },
        faulty(
            FaultySubscriptionMutant.Fault.recursionInlineWithoutCurrent,
            "with no current scheduler, runs a recursion on the caller's thread", .sub3
        ) { FaultySubscriptionMutant($0) },
        faulty(
            FaultySubscriptionMutant.Fault.reschedulesRetarget,
            "sends each run of a recursion to the scheduler current where it was asked for", .sub3
        ) { FaultySubscriptionMutant($0) },
        faulty(
            FaultySubscriptionMutant.Fault.inlineOneDeep,
            "runs inline only outside its own inline runs, queueing nested actions on the current scheduler", .lin6
        ) { FaultySubscriptionMutant($0) },
        faulty(
            FaultySubscriptionMutant.Fault.lateReschedulesInline,
            "runs a recursion's late run inline where the asking thread has a current scheduler", .lin6
        ) { FaultySubscriptionMutant($0) },
    ]
}
