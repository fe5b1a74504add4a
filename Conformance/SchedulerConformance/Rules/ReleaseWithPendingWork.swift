import SchedulerProbes
import Schedulers
import Synchronization

/// THR-2. The work is provably pending at release: a serial real-time scheduler is held by
/// a first action until well after release, a virtual one runs nothing until driven, and a
/// timer a quiet window out is pending on any scheduler with timers; a scheduler that can
/// give none of these must show some action not yet run once it is released, or the rule is
/// inconclusive. A second path that runs pending work (a "flush" on release beside the
/// scheduler's own queue) gets the whole quiet window while the scheduler is still held,
/// and the counts are read only once the scheduler's own queue is done with the work, so
/// both runs have happened when they are read.
func releaseWithPendingWork(_ ctx: RuleContext) throws(RuleFailure) {
    let actions = 100
    let ledger = ReleaseLedger(actions: actions)
    let quiet = ctx.timing.quietWindow
    let mustHappen = ctx.timing.mustHappen
    let holds = ctx.canHold
    let gate = Signal()
    ctx.track(gate)
    var timerDue: ContinuousClock.Instant?
    do {
        let scheduler = ctx.makeScheduler()
        if holds {
            let started = Signal()
            scheduler.schedule {
                guard ledger.ran(ReleaseLedger.holder) == 1 else { return }
                started.fire()
                _ = gate.wait(mustHappen)
            }
            try ctx.waitFor(started, on: scheduler, "the holding action started")
        }
        for id in 1...actions { scheduler.schedule { ledger.ran(id) } }
        if ctx.subject.capabilities.contains(.timers) {
            let armedAt = RuleContext.referenceNow()
            if (try? scheduler.schedule(after: quiet) { ledger.ran(ReleaseLedger.timer(actions)) }) != nil {
                timerDue = armedAt + quiet + ctx.timing.lateness
            }
        }
    }
    // Only now is the scheduler gone: whatever has not run yet was pending at release.
    let virtual = ctx.subject.capabilities.contains(.virtualTime)
    try ctx.requireExercised(
        holds || virtual || ledger.somePending(timerArmed: timerDue != nil),
        "every action had run before the scheduler was released")

    if holds { _ = ledger.allRan.wait(quiet) }
    ledger.open()
    gate.fire()
    // Until the scheduler's own queue is done: every action ran once more since the gate
    // opened, or nothing at all ran for a quiet window once the timer was due (dropped).
    let giveUp = RuleContext.referenceNow() + mustHappen
    while RuleContext.referenceNow() < giveUp, !ledger.finishedSinceOpen(timerArmed: timerDue != nil) {
        let idle = !ledger.progress.wait(quiet)
        if idle, timerDue.map({ RuleContext.referenceNow() >= $0 }) ?? true { break }
    }
    let twice = ledger.ranMoreThanOnce
    try ctx.expect(
        twice.isEmpty,
        """
        \(twice.count) of the actions pending at release ran more than once after the scheduler was released \
        (\(twice.prefix(5).joined(separator: ", ")))
        """
    )
    switch ctx.subject.declared.pendingWorkOnRelease {
    case .runs?:
        let missing = ledger.neverRan(timerArmed: timerDue != nil)
        try ctx.expect(
            missing == 0,
            """
            \(missing) of the actions pending at release never ran, though the subject declares \
            `.pendingWorkOnRelease(.runs)` (a scheduler that drops its work on release declares \
            `.pendingWorkOnRelease(.dropped)`)
            """
        )
    case .dropped?:
        let after = ledger.ranSinceOpen
        try ctx.expect(
            after == 0,
            """
            \(after) of the actions pending at release ran after it, though the subject declares \
            `.pendingWorkOnRelease(.dropped)` (a scheduler that runs its work on release declares \
            `.pendingWorkOnRelease(.runs)`)
            """
        )
    case nil:
        break
    }
}

/// How often each of THR-2's actions ran, and which ran again after its gate opened.
final class ReleaseLedger: Sendable {
    /// The id of the action holding the scheduler.
    static let holder = 0
    /// The id of the timer: after the `actions` plain actions.
    static func timer(_ actions: Int) -> Int { actions + 1 }

    private struct State {
        var runs: [Int]
        var neverRan: Int
        var opened = false
        var sinceOpen: Set<Int> = []
    }

    private let actions: Int
    private let state: Lock<State>
    /// Fires on every run.
    let progress = Signal()
    /// Fires when each plain action has run at least once.
    let allRan = Signal()

    init(actions: Int) {
        self.actions = actions
        state = Lock(State(runs: Array(repeating: 0, count: actions + 2), neverRan: actions))
    }

    /// Records a run of `id`; returns how many times it has run.
    @discardableResult
    func ran(_ id: Int) -> Int {
        let (count, lastFirstRun) = state.withLock { state in
            state.runs[id] += 1
            if state.opened { state.sinceOpen.insert(id) }
            guard (1...actions).contains(id), state.runs[id] == 1 else { return (state.runs[id], false) }
            state.neverRan -= 1
            return (1, state.neverRan == 0)
        }
        if lastFirstRun { allRan.fire() }
        progress.fire()
        return count
    }

    /// Whether a plain action (or the armed timer) has not run.
    func somePending(timerArmed: Bool) -> Bool {
        state.withLock { state in
            state.neverRan > 0 || (timerArmed && state.runs[Self.timer(actions)] == 0)
        }
    }

    /// From now on, runs count as the scheduler's own, after its gate opened.
    func open() { state.withLock { $0.opened = true } }

    /// Whether every plain action (and the armed timer) ran since ``open()``.
    func finishedSinceOpen(timerArmed: Bool) -> Bool {
        state.withLock { state in
            (1...actions).allSatisfy(state.sinceOpen.contains)
                && (!timerArmed || state.sinceOpen.contains(Self.timer(actions)))
        }
    }

    /// How many plain actions (and the armed timer) never ran at all.
    func neverRan(timerArmed: Bool) -> Int {
        state.withLock { state in
            state.neverRan + (timerArmed && state.runs[Self.timer(actions)] == 0 ? 1 : 0)
        }
    }

    /// How many plain actions and timers ran since ``open()``: after the release.
    var ranSinceOpen: Int { state.withLock { $0.sinceOpen.subtracting([Self.holder]).count } }

    /// The actions that ran more than once, named.
    var ranMoreThanOnce: [String] {
        state.withLock { state in
            state.runs.indices.filter { state.runs[$0] > 1 }.map { id in
                let name =
                    id == Self.holder ? "the holding action" : id == Self.timer(actions) ? "the timer" : "action \(id)"
                return "\(name) \(state.runs[id]) times"
            }
        }
    }
}
