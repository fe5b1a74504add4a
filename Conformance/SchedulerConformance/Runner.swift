import Dispatch
import Foundation
import SchedulerDiagnostics
import SchedulerProbes
import Schedulers
import Synchronization

/// Runs rules against a subject inside this process, each under a watchdog.
///
/// Each rule runs on a fresh thread; a rule that does not finish within
/// `Timing.ruleTimeout` is reported as `timeout` and its thread is abandoned, so one
/// hung scheduler costs one rule, not the run. A subject that crashes the process cannot
/// be contained here: the `conformance` command runs subjects in child processes for that.
public enum ConformanceRunner {
    /// Runs `rules` (the whole catalogue by default) against `subject`, calling `willStart`
    /// before each rule that applies and `progress` after each rule, and returns the results
    /// in the order of `rules`. `ownsProcess` says this process runs nothing else (a tool's
    /// worker): then a rule that finds the scheduler stuck attaches every thread's stack,
    /// stopping the whole process while gdb reads them, and THR-6 weighs the process's memory
    /// (elsewhere it is inconclusive: other work allocates beside it).
    ///
    /// Called on the main thread, it runs the rules on another thread and drives the main
    /// run loop meanwhile, so main-thread schedulers can be checked; elsewhere the rules
    /// that need the main thread are skipped with that reason. The last result is reported
    /// once the main thread's drain has returned for it, and is an `error` if it does not
    /// within the rule timeout. With `trapProbe`, rules that judge a trap (EXE-7's
    /// `checkIsolated()`) run it in a process of its own; without, they judge what they can
    /// and are otherwise inconclusive. `exploration` sets the model-checked rules' budget
    /// and seed.
    public static func run(
        _ subject: ConformanceSubject,
        rules: [Rule] = RuleCatalogue.all,
        timing: Timing,
        ownsProcess: Bool = false,
        trapProbe: TrapProbeRunner? = nil,
        exploration: Exploration = .standard,
        willStart: @escaping @Sendable (Rule) -> Void = { _ in },
        progress: @escaping @Sendable (RuleResult) -> Void = { _ in }
    ) -> [RuleResult] {
        let context = { @Sendable (mainThreadDriven: Bool) in
            RuleContext(
                subject: subject, timing: timing, mainThreadDriven: mainThreadDriven, ownsProcess: ownsProcess,
                trapProbe: trapProbe, exploration: exploration)
        }
        guard Thread.isMainThread else {
            return runRules(context(false), rules: rules, willStart: willStart, progress: progress)
        }
        let results = Box<[RuleResult]?>(nil)
        let lastResult = Signal()
        let seenByMain = Signal()
        let timeout = timing.ruleTimeout
        Thread {
            results.value = runRules(context(true), rules: rules, willStart: willStart) { result in
                guard result.rule == rules.last?.id else { return progress(result) }
                // The library's own helper drives the main queue, so the rules judge it too:
                // a drain that stops running the loop leaves the main scheduler's actions
                // waiting, and one that misses a condition another thread set (nothing else
                // wakes the main thread after the last rule) never returns. The last result
                // waits for the main thread to see it.
                lastResult.fire()
                guard !seenByMain.wait(timeout) else { return progress(result) }
                var unseen = result
                unseen.status = .error
                unseen.exercised = false
                unseen.message =
                    """
                    the rules finished, but the main thread's `MainThreadScheduler.drain(until:timeout:)` did not \
                    return within \(timeout) of its condition becoming true on another thread: the suite's driver \
                    of the main queue is broken, so this run's main-thread results cannot be trusted
                    """
                progress(unseen)
            }
        }.start()
        drainMainQueue(until: { lastResult.hasFired || results.value != nil })
        seenByMain.fire()
        drainMainQueue(until: { results.value != nil })
        return results.value!
    }

    /// Drives the main queue from the main thread until `condition` holds.
    private static func drainMainQueue(until condition: () -> Bool) {
        while (try? MainThreadScheduler.drain(until: condition, timeout: .seconds(3_600))) != true {}
    }

    private static func runRules(
        _ context: RuleContext, rules: [Rule], willStart: @Sendable (Rule) -> Void,
        progress: @Sendable (RuleResult) -> Void
    ) -> [RuleResult] {
        let subject = context.subject
        if subject.capabilities.contains(.mainThread), !context.mainThreadDriven, !mainQueueIsDrained() {
            return rules.map { rule in
                let result = RuleResult(
                    rule: rule.id, level: rule.level, status: .skipped, durationSeconds: 0,
                    message:
                        """
                        the main queue is not drained in this process (run from XCTest's main thread or the \
                        `conformance` command)
                        """
                )
                progress(result)
                return result
            }
        }
        return rules.map { rule in
            if rule.skipReason(for: subject) == nil { willStart(rule) }
            let result = run(rule, in: context)
            context.endRule()
            progress(result)
            return result
        }
    }

    /// Whether something drains the main queue (Swift concurrency's main executor does on
    /// Linux, from a thread of its own): a sentinel must run within a second.
    private static func mainQueueIsDrained() -> Bool {
        let ran = Signal()
        DispatchQueue.main.async { ran.fire() }
        return ran.wait(.seconds(1))
    }

    /// Runs a rule that ``Rule/needsIdleCores`` alone in the process, and the others side by side.
    private static let cores = CoreGate()

    /// Runs one rule under the watchdog.
    static func run(_ rule: Rule, in context: RuleContext) -> RuleResult {
        if let reason = rule.skipReason(for: context.subject) {
            return RuleResult(
                rule: rule.id, level: rule.level, status: .skipped, durationSeconds: 0, message: reason)
        }
        return cores.run(exclusive: rule.needsIdleCores) { watch(rule, in: context) }
    }

    /// Runs one rule on a thread of its own, and gives up on it after the rule timeout.
    private static func watch(_ rule: Rule, in context: RuleContext) -> RuleResult {
        let outcome = Box<RuleResult?>(nil)
        let finished = Signal()
        let started = ContinuousClock.now
        let threadID = Atomic<Int32>(-1)
        let thread = Thread {
            CorePinning.nameCurrentThread("rule \(rule.id)")
            threadID.store(StackSample.sampleableCurrentThreadID ?? -1, ordering: .relaxed)
            context.ruleThread.store(CorePinning.currentThreadID ?? -1, ordering: .relaxed)
            var result: RuleResult
            do throws(RuleFailure) {
                try rule.check(context)
                // What the rule judged after a held action let itself go is not what it meant
                // to judge: the hang that action found is the verdict.
                if let hang = context.takeHeldHang() { throw hang }
                result =
                    rule.guarantee.map {
                        RuleResult(
                            rule: rule.id, level: rule.level, status: .guaranteed, durationSeconds: 0,
                            message: $0)
                    }
                    ?? RuleResult(
                        rule: rule.id, level: rule.level, status: .passed, durationSeconds: 0,
                        message: context.takeNotes())
            } catch {
                _ = context.takeNotes()
                let failure = error.kind == .hung ? error : context.takeHeldHang() ?? error
                let status: RuleResult.Status =
                    switch failure.kind {
                    case .failed: .failed
                    case .error: .error
                    case .skipped: .skipped
                    case .inconclusive: .inconclusive
                    case .hung: .timeout
                    }
                var message = failure.message
                // A failure of a rule that applies only for want of a claim may be a missing claim.
                if status == .failed || status == .timeout,
                    let note = rule.exclusionNote(for: context.subject.capabilities)
                {
                    message += " " + note
                }
                result = RuleResult(
                    rule: rule.id, level: rule.level, status: status, durationSeconds: 0, message: message,
                    threadDump: failure.threadDump)
            }
            result.durationSeconds = (ContinuousClock.now - started).timeInterval
            outcome.value = result
            finished.fire()
        }
        thread.stackSize = 1 << 20
        thread.start()
        guard finished.wait(context.timing.ruleTimeout), let result = outcome.value else {
            let id = threadID.load(ordering: .relaxed)
            let kernelSays = id >= 0 ? HangDiagnosis.activity(of: id) : nil
            let activity = kernelSays.map { " (\($0))" } ?? ""
            let place =
                (id >= 0 ? HangDiagnosis.sampledStuckFrame(of: id) : nil).map {
                    "\(HangDiagnosis.placeWord(activity: kernelSays)) `\($0)`"
                }
                ?? "still inside a call into the subject or a wait of the rule's"
            return RuleResult(
                rule: rule.id, level: rule.level, status: .timeout,
                durationSeconds: (ContinuousClock.now - started).timeInterval,
                message:
                    "did not finish within \(context.timing.ruleTimeout); its thread was abandoned\(activity), \(place)"
                    + " (the `conformance` tool's report gives every thread's stack)"
            )
        }
        return result
    }
}

/// The verdicts of the rules that judge only this package (``Rule/judgesOnlyThePackage``)
/// within one run of many subjects: the first subject a rule applies to judges it, and every
/// later one gets that result, saying where it came from, instead of judging it again (LIN-5
/// took 2.7 s a subject for the same verdict). ``order(of:)`` says which subject to judge
/// first.
public struct PackageVerdicts: Sendable {
    private var judged: [RuleID: (subject: String, result: RuleResult)] = [:]

    /// No verdicts yet.
    public init() {}

    /// The order in which to judge `plan`'s subjects (indices into it): each subject that is
    /// the lightest for one of the package's own rules first, then the rest, each group in
    /// the plan's order. The lightest subject a rule applies to is a virtual-time one (its
    /// rules drive its time instead of waiting for the clock, so they end soonest whatever
    /// their number), else the one with the fewest rules to judge (the earliest of equals):
    /// the one extra rule does not go to a subject whose checks already take longest.
    public static func order(of plan: [(subject: ConformanceSubject, rules: [Rule])]) -> [Int] {
        let applicable = plan.map { entry in entry.rules.filter { $0.skipReason(for: entry.subject) == nil } }
        let packageRules = Set(applicable.joined().filter(\.judgesOnlyThePackage).map(\.id))
        func weight(_ index: Int) -> (Int, Int, Int) {
            (plan[index].subject.capabilities.contains(.virtualTime) ? 0 : 1, applicable[index].count, index)
        }
        let first = Set(
            packageRules.compactMap { id in
                applicable.indices.filter { applicable[$0].contains { $0.id == id } }.min { weight($0) < weight($1) }
            })
        return plan.indices.filter(first.contains) + plan.indices.filter { !first.contains($0) }
    }

    /// The results of `rules` on `subject`, in their order: `run` judges those not judged
    /// earlier in this run, and the verdicts of the package's own rules are kept for the
    /// subjects after this one. An inconclusive verdict, a timeout or an error is not kept:
    /// the next subject judges the rule again.
    public mutating func results(
        of rules: [Rule], on subject: ConformanceSubject, run: ([Rule]) -> [RuleResult]
    ) -> [RuleResult] {
        let reused = Dictionary(
            uniqueKeysWithValues: rules.compactMap { rule -> (RuleID, RuleResult)? in
                guard rule.skipReason(for: subject) == nil, let earlier = judged[rule.id] else { return nil }
                var result = earlier.result
                result.durationSeconds = 0
                result.message =
                    "judged once in this run, on `\(earlier.subject)`" + (result.message.map { ": \($0)" } ?? "")
                return (rule.id, result)
            })
        let judging = rules.filter { reused[$0.id] == nil }
        let fresh = run(judging)
        for (rule, result) in zip(judging, fresh)
        where rule.judgesOnlyThePackage && [.guaranteed, .passed, .failed].contains(result.status) {
            judged[rule.id] = (subject.name, result)
        }
        var next = fresh.makeIterator()
        return rules.map { reused[$0.id] ?? next.next()! }
    }
}
