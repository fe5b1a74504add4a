import Foundation
import SchedulerDiagnostics
import SchedulerProbes
import Schedulers

/// Holding a scheduler up, the threads a rule starts, and the hangs of either: where a rule
/// meets a subject that never returns, and says where.
extension RuleContext {
    /// A hang: `message`, and where this process may take stacks (``ownsProcess``) every
    /// thread's, the `stuck` threads' first, with the call each is stuck in and the holder of
    /// the lock it waits on (see ``HangReport``). Without stacks, each named thread's own
    /// stack is sampled for the call. Other threads found inside the subject's code (the
    /// rule's own) are named too.
    func hang(_ message: String, stuck: [(name: String, threadID: Int32?)] = []) -> RuleFailure {
        diagnosing.add(1, ordering: .releasing)
        defer { diagnosing.subtract(1, ordering: .releasing) }
        var report = HangReport(stuck)
        guard ownsProcess, let dump = ThreadDump.ofThisProcess(within: .seconds(20)) else {
            return RuleFailure(([message] + report.places(in: nil)).joined(separator: "; "), kind: .hung)
        }
        let found = HangDiagnosis.stuckCalls(in: dump).filter { call in !stuck.contains { $0.threadID == call.threadID }
        }
        report.add(found.map { (name: "thread \"\($0.threadName)\"", threadID: $0.threadID) })
        // A runaway on a thread of the subject's own (a task's, a timer's) is where the time went.
        let subjects = HangDiagnosis.stuckCalls(in: dump, calledOrNot: true).filter { call in
            !report.threads.contains { $0.threadID == call.threadID }
        }
        let spinning = HangDiagnosis.activities(of: subjects.compactMap(\.threadID)).filter {
            $0.value == HangDiagnosis.spinningActivity
        }
        report.add(
            subjects.filter { $0.threadID.map { spinning[$0] != nil } ?? false }.map {
                (name: "thread \"\($0.threadName)\"", threadID: $0.threadID)
            })
        return RuleFailure(
            ([message] + report.places(in: dump)).joined(separator: "; "), kind: .hung,
            threadDump: HangDiagnosis.ordered(dump, first: report.ids(in: dump)))
    }

    /// Blocks a real-time `scheduler` with an action that waits on the returned
    /// gate, so work scheduled next stays pending until `Signal/fire()`. On a virtual
    /// scheduler nothing runs until driven, so the gate is only a formality.
    /// Synchronous and trampoline subjects cannot be held (the holding action would block
    /// the caller): for them, too, the gate is a formality.
    ///
    /// - Parameters:
    ///   - scheduler: the scheduler to hold.
    ///   - inside: set while the holding action runs, so work that starts beside it (an
    ///     overlap) can tell.
    public func hold(_ scheduler: any Scheduler, inside: Box<Bool>? = nil) throws(RuleFailure) -> Signal {
        let gate = Signal()
        guard !(scheduler is any VirtualTimeScheduler),
            subject.capabilities.isDisjoint(with: [.synchronous, .trampoline])
        else { return gate }
        let held = holding(gate, inside: inside)
        scheduler.schedule(held.body)
        try waitFor(held.started, on: scheduler, "the blocking action started")
        return gate
    }

    /// What a held action does, for work that holds its scheduler from inside another kind of
    /// action (a recursion's run): fires `started`, then waits for `gate`, which is released
    /// after the rule at the latest, as ``hold(_:inside:)``'s is.
    func holding(_ gate: Signal, inside: Box<Bool>? = nil) -> (body: @Sendable () -> Void, started: Signal) {
        track(gate)
        let started = Signal()
        // Let go only well after a wait of `mustHappen` that started later, and never while
        // a hang is being diagnosed: a subject that deadlocks on the held action must still be
        // stuck when its stacks are read. The runner fires the gate after the rule.
        let bound = timing.mustHappen * 1.5
        let body: @Sendable () -> Void = { [self] in
            inside?.value = true
            started.fire()
            while !gate.wait(bound) {
                if diagnosing.load(ordering: .acquiring) > 0 { continue }
                heldTooLong(bound)
                break
            }
            inside?.value = false
        }
        return (body, started)
    }

    /// Records, from a held action that waited `bound` for the rule to let it go, where the
    /// rule is stuck: on something that action holds up (a `schedule` that waits for the
    /// running action to end, a lock it holds). The rule, going on once the action lets go,
    /// no longer holds the scheduler as it meant to: its verdict is the runner's to replace.
    private func heldTooLong(_ bound: Duration) {
        let id = ruleThread.load(ordering: .relaxed)
        let failure = hang(
            "an action the rule held up was not let go within \(bound): the rule was stuck on something it held up",
            stuck: [("the rule's thread", id >= 0 ? id : nil)])
        heldHang.withLock { $0 = $0 ?? failure }
    }

    /// Takes the hang of ``heldTooLong(_:)``, if there was one since the last call.
    func takeHeldHang() -> RuleFailure? {
        heldHang.withLock { hang in
            defer { hang = nil }
            return hang
        }
    }

    /// Keeps `gate` to be released after the rule, like the gates of ``hold(_:)``.
    func track(_ gate: Signal) {
        holds.withLock { $0.append(gate) }
    }

    /// Runs `body` on a new thread that no scheduler drives, waits for it and returns its
    /// result.
    public func onFreshThread<T: Sendable>(
        within bound: Duration? = nil, _ body: @escaping @Sendable () throws(RuleFailure) -> T
    ) throws(RuleFailure) -> T {
        let bound = bound ?? timing.mustHappen
        let result = Lock<Result<T, RuleFailure>?>(nil)
        let done = Signal()
        let threadID = Lock<Int32?>(nil)
        let thread = Thread {
            CorePinning.nameCurrentThread("helper")
            threadID.withLock { $0 = StackSample.sampleableCurrentThreadID }
            let outcome: Result<T, RuleFailure>
            do { outcome = .success(try body()) } catch { outcome = .failure(error as! RuleFailure) }
            result.withLock { $0 = outcome }
            done.fire()
        }
        thread.start()
        guard done.wait(bound) else {
            throw hang(
                "a helper thread did not finish within \(bound)",
                stuck: [("the helper thread", threadID.withLock { $0 })])
        }
        return try result.withLock { $0 }!.get()
    }

    /// Runs `body` on another thread, or on this one for a `SchedulerCapabilities/threadConfined`
    /// subject, which must only be called from the thread that made it.
    public func fromAnotherThreadIfAllowed(_ body: @escaping @Sendable () throws(RuleFailure) -> Void)
        throws(RuleFailure)
    {
        if subject.capabilities.contains(.threadConfined) { return try body() }
        try onFreshThread(body)
    }

    /// Runs `body(index)` on `count` new threads released together, and waits for all.
    ///
    /// - Parameters:
    ///   - count: how many threads.
    ///   - spread: pin thread `index` to the `index`-th core this process may use (round
    ///     robin; Linux only), so that on a loaded machine the kernel cannot keep all of them
    ///     on one core, where calls never overlap.
    ///   - body: what each thread runs, given its index.
    public func onThreads(_ count: Int, spread: Bool = false, _ body: @escaping @Sendable (Int) -> Void)
        throws(RuleFailure)
    {
        let stragglers = Threads.stragglers(count, pinned: spread, within: timing.mustHappen, body)
        guard stragglers.isEmpty else {
            throw hang(
                "\(stragglers.count) of \(count) producer threads did not finish within \(timing.mustHappen)",
                stuck: stragglers.map { ("producer thread \($0.index)", $0.threadID) })
        }
    }
}
