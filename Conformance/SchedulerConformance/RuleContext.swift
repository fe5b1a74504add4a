import Dispatch
import Foundation
import SchedulerProbes
import Schedulers
import Synchronization

/// What a rule's check works with: fresh schedulers from the subject, calibrated timing,
/// and the waiting and asserting helpers that keep rules free of sleeps.
public final class RuleContext: Sendable {
    /// The subject under test.
    public let subject: ConformanceSubject
    /// The calibrated bounds.
    public let timing: Timing
    /// Whether the main thread is being driven by the runner, so main-thread work runs.
    public let mainThreadDriven: Bool
    /// How long the model-checked rules explore, and from which seed.
    public let exploration: Exploration

    /// Gates of `hold(_:)` not yet released; the runner releases them after each rule, so a
    /// rule that fails half-way never leaves its scheduler blocked for the next one.
    let holds = Lock<[Signal]>([])
    /// How many ``hang(_:stuck:)`` calls are reading stuck threads (a held action's may
    /// overlap the rule's own): while any is, a held action keeps holding.
    let diagnosing = Atomic(0)
    /// The kernel ID of the thread running the rule, set by the runner: the thread a held
    /// action that was never let go names.
    let ruleThread = Atomic<Int32>(-1)
    /// The hang a held action found when the rule had not let it go (see ``hold(_:inside:)``).
    let heldHang = Lock<RuleFailure?>(nil)

    /// The handles ``attempt(_:_:)`` returned, held weakly: a handle the rule lets go of is
    /// freed as the subject frees it (rules check that), and one still alive when the rule
    /// ends is disposed then. A rule that fails between scheduling a repeating timer and
    /// disposing it would otherwise leave the timer ticking through every later rule and
    /// test in the process.
    private let handles = Lock<[WeakHandle]>([])

    private struct WeakHandle {
        weak var handle: (any Disposable)?
    }

    /// Whether this process runs nothing but these rules (a tool's worker). Only then does a
    /// hang take every thread's stack (gdb stops the whole process while it reads them), and
    /// only then can a rule weigh the process's memory as its own (THR-6).
    let ownsProcess: Bool

    /// Runs code that must trap in a process of its own, when this process can start one.
    let trapProbe: TrapProbeRunner?

    init(
        subject: ConformanceSubject, timing: Timing, mainThreadDriven: Bool, ownsProcess: Bool = false,
        trapProbe: TrapProbeRunner? = nil, exploration: Exploration = .standard
    ) {
        self.subject = subject
        self.exploration = exploration
        self.timing = timing
        self.mainThreadDriven = mainThreadDriven
        self.ownsProcess = ownsProcess
        self.trapProbe = trapProbe
    }

    /// A fresh scheduler from the subject.
    public func makeScheduler() -> any Scheduler { subject.makeScheduler() }

    // MARK: Assertions

    /// Fails the rule with `message` unless `condition` holds.
    public func expect(_ condition: Bool, _ message: @autoclosure () -> String, kind: RuleFailure.Kind = .failed)
        throws(RuleFailure)
    {
        if !condition { throw RuleFailure(message(), kind: kind) }
    }

    /// Fails the rule unless `value` is non-nil, and returns it.
    public func unwrap<T>(_ value: T?, _ message: @autoclosure () -> String) throws(RuleFailure) -> T {
        guard let value else { throw RuleFailure(message()) }
        return value
    }

    /// `delay` after `scheduler`'s now, on its own clock; an overflow fails the rule.
    public func deadline(_ delay: Duration, on scheduler: any Scheduler) throws(RuleFailure) -> SchedulerTime {
        try attempt("now + \(delay)") { () throws(SchedulerError) in try scheduler.now.advanced(by: delay) }
    }

    /// Fails the rule with `message` unless every token of `live` is freed within the
    /// calibrated lateness: prompt release, not necessarily inside the action's last return.
    public func expectReleased(_ live: LiveCounter, _ message: @autoclosure () -> String) throws(RuleFailure) {
        if !live.waitForNone(within: timing.lateness) { throw RuleFailure(message()) }
    }

    /// Runs a scheduler call that must not throw; a thrown error fails the rule.
    /// A handle it returns is disposed when the rule ends, if the rule has not let it go.
    public func attempt<T>(_ what: String, _ body: () throws(SchedulerError) -> T) throws(RuleFailure) -> T {
        let result: T
        do { result = try body() } catch { throw RuleFailure("\(what) threw \(error)") }
        if let handle = result as? any Disposable { handles.withLock { $0.append(WeakHandle(handle: handle)) } }
        return result
    }

    // MARK: Waiting

    /// Waits until `signal` fires. On a virtual-time scheduler this drives `scheduler`
    /// one step at a time instead of waiting; elsewhere it waits up to `bound`
    /// (`Timing.mustHappen` unless a rule knows it needs longer).
    public func waitFor(
        _ signal: Signal, on scheduler: any Scheduler, within bound: Duration? = nil, _ what: @autoclosure () -> String
    ) throws(RuleFailure) {
        if let virtual = scheduler as? any VirtualTimeScheduler {
            while !signal.hasFired {
                guard virtual.step() else {
                    throw RuleFailure("\(what()): nothing left to run on the virtual scheduler")
                }
            }
            return
        }
        let bound = bound ?? timing.mustHappen
        if !signal.wait(bound) {
            let probe = timing.mustHappen / 10
            if !runsWork(scheduler, within: probe) {
                throw hang(
                    """
                    \(what()): did not happen within \(bound), and a probe scheduled then did not run within \(probe) \
                    either: the scheduler is stuck
                    """
                )
            }
            throw RuleFailure("\(what()): did not happen within \(bound)")
        }
    }

    /// Whether `scheduler` still runs new work: what tells a lost action (a failure) from
    /// a stuck scheduler (a hang, which is reported as a timeout with every thread's
    /// stack). The probe is scheduled from a thread of its own, since `schedule` itself
    /// may be what blocks.
    private func runsWork(_ scheduler: any Scheduler, within bound: Duration) -> Bool {
        let ran = Signal()
        Thread { scheduler.schedule { ran.fire() } }.start()
        return ran.wait(bound)
    }

    /// Whether Dispatch's global queue ran a probe submitted now, within
    /// `Timing.mustHappen`. Work handed to it before this call is taken off the queue before
    /// the probe, so a rule that watched for such work to start can trust its window only
    /// after this says yes: on a busy 2-core machine other waits may hold every thread of the
    /// pool for longer than the window. (The Swift concurrency pool is not probed: a rule
    /// called from a test's task may itself be what holds it.)
    public func sharedPoolRuns() -> Bool {
        let probe = Signal()
        DispatchQueue.global().async { probe.fire() }
        return probe.wait(timing.mustHappen)
    }

    /// Waits like ``waitFor(_:on:within:_:)`` on a real-time scheduler, but by polling, so
    /// the caller goes on within a microsecond or so of the firing instead of after a
    /// semaphore's wake-up: for rules that must act at a known moment of the worker's work.
    /// After 200 µs it yields between polls, so a worker sharing this core still gets to run.
    public func spinUntil(_ signal: Signal, on scheduler: any Scheduler, _ what: @autoclosure () -> String)
        throws(RuleFailure)
    {
        if !spinWait(upTo: timing.mustHappen, until: { signal.hasFired }) {
            try waitFor(signal, on: scheduler, within: .zero, what())
        }
    }

    /// Waits like ``waitFor(_:on:within:_:)`` but reports instead of throwing: whether
    /// `signal` fired. For rules that classify what they saw when it did not.
    public func waitQuietly(for signal: Signal, on scheduler: any Scheduler) -> Bool {
        if let virtual = scheduler as? any VirtualTimeScheduler {
            while !signal.hasFired { guard virtual.step() else { return false } }
            return true
        }
        return signal.wait(timing.mustHappen)
    }

    /// Returns once everything scheduled on `scheduler` so far has run or been skipped:
    /// a sentinel action on a serial scheduler, a full drain on a virtual one. For
    /// synchronous schedulers there is nothing to wait for.
    public func quiesce(_ scheduler: any Scheduler) throws(RuleFailure) {
        let capabilities = subject.capabilities
        if let virtual = scheduler as? any VirtualTimeScheduler {
            virtual.stepAll()
            return
        }
        if capabilities.contains(.synchronous) || capabilities.contains(.trampoline) { return }
        guard capabilities.contains(.serial) else {
            throw RuleFailure("quiesce needs a serial, virtual or synchronous subject", kind: .error)
        }
        let sentinel = Signal()
        scheduler.schedule { sentinel.fire() }
        try waitFor(sentinel, on: scheduler, "a sentinel scheduled after the work")
    }

    /// Returns once `deadline` has certainly passed for `scheduler`'s actions, so a check
    /// that something did not fire can be made: a virtual scheduler is advanced past it;
    /// a serial one runs a sentinel timer `lateness` after it; others wait `quietWindow`
    /// past it, the one place a rule watches the clock instead of a happens-before edge.
    public func waitPast(_ deadline: SchedulerTime, on scheduler: any Scheduler) throws(RuleFailure) {
        if let virtual = scheduler as? any VirtualTimeScheduler {
            virtual.advance(to: (try? deadline.advanced(by: .nanoseconds(1))) ?? deadline)
            return
        }
        let after = try attempt("deadline + lateness") { () throws(SchedulerError) in
            try deadline.advanced(by: timing.lateness)
        }
        if subject.capabilities.contains(.serial) && subject.capabilities.contains(.timers) {
            let sentinel = Signal()
            _ = try attempt("schedule(at:) of a sentinel") { () throws(SchedulerError) in
                try scheduler.schedule(at: after) { sentinel.fire() }
            }
            try waitFor(sentinel, on: scheduler, "a sentinel timer after the deadline")
            return
        }
        let remaining = scheduler.now.duration(to: after)
        if remaining > .zero { Thread.sleep(forTimeInterval: remaining.timeInterval) }
    }

    /// After the work of a rule: everything scheduled has run where that can be proven
    /// (``quiesce(_:)``), otherwise the quiet window has passed.
    public func settle(_ scheduler: any Scheduler) throws(RuleFailure) {
        let capabilities = subject.capabilities
        if scheduler is any VirtualTimeScheduler
            || !capabilities.isDisjoint(with: [.serial, .synchronous, .trampoline])
        {
            try quiesce(scheduler)
        } else {
            Thread.sleep(forTimeInterval: timing.quietWindow.timeInterval)
        }
    }

    /// What a passing rule says about the evidence it gathered (how many scenarios it ran,
    /// how many overlapped), reported as its message; the runner takes it after each rule.
    private let evidence = Lock<[String]>([])

    /// Records `note` as evidence for the rule now running, to be reported if it passes.
    public func note(_ note: String) { evidence.withLock { $0.append(note) } }

    /// Takes the notes recorded since the last call.
    func takeNotes() -> String? {
        let notes = evidence.withLock { notes in
            defer { notes = [] }
            return notes
        }
        return notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    /// What the runner does after each rule: disposes the handles of ``attempt(_:_:)`` still
    /// alive (disposing twice is harmless), then releases every gate of ``hold(_:)`` (firing
    /// one twice is too), so a rule that failed half-way leaves the next one neither a
    /// blocked scheduler nor a timer still ticking.
    func endRule() {
        let live = handles.withLock { handles in
            defer { handles = [] }
            return handles.compactMap(\.handle)
        }
        for handle in live { handle.dispose() }
        let gates = holds.withLock { gates in
            defer { gates = [] }
            return gates
        }
        for gate in gates { gate.fire() }
        _ = takeHeldHang()
    }

    /// The suite's own monotonic clock, independent of every subject's `now`.
    public static func referenceNow() -> ContinuousClock.Instant { ContinuousClock.now }

    /// Whether the subject's actions can be held up by `hold(_:)` (serial, asynchronous,
    /// real time), so that work scheduled meanwhile is provably queued together.
    public var canHold: Bool {
        let capabilities = subject.capabilities
        return capabilities.contains(.serial)
            && capabilities.isDisjoint(with: [.synchronous, .trampoline, .virtualTime])
    }

    /// Throws an inconclusive result unless `occurred`: the situation the rule judges did
    /// not come about, so the rule cannot say the subject behaved.
    public func requireExercised(_ occurred: Bool, _ what: @autoclosure () -> String) throws(RuleFailure) {
        if !occurred { throw RuleFailure(what(), kind: .inconclusive) }
    }

    /// The number of producer threads for contention rules: oversubscribes the cores.
    public var producerCount: Int { max(4, ProcessInfo.processInfo.activeProcessorCount * 2) }
}
