import SchedulerProbes
import Synchronization

/// Two calls into a subject made at once from two threads, trial after trial, for the rules
/// that judge what a pair of calls does when it overlaps (a reschedule against a dispose, a
/// reschedule against the end of a loop).
///
/// The threads are a crew pinned one per core, released from a spin barrier, so they leave it
/// within a fraction of a microsecond of each other. One of them then pauses before its risky
/// point, and which one alternates. The pause sweeps, over 160 trials (evenly, and every other
/// sweep finest near zero), from nothing to half as long again as the calls themselves take
/// (measured as the race goes, so a debug build's slower calls are covered as well as an
/// optimised build's), in steps of about a cycle (``busySteps(_:)``, finer than a clock read):
/// across trials each call lands at every point of the other, where a window of a few
/// nanoseconds between two critical sections sits. Whether a trial's calls met is read, not
/// assumed: each thread stamps its span from one shared counter, and marks its context
/// switches around it; only spans that overlapped on threads that kept their cores count as
/// evidence. Nor is the sweep's reach assumed: each thread reads the clock as its pause ends,
/// so the offset between the two risky points is measured, and
/// ``explore(_:until:pairs:batch:prepare:race:judge:)`` races on until the trials that met
/// covered every offset at which one call can land on the other (``OffsetCoverage``): on a
/// loaded machine the barrier's release can be skewed past what the pauses sweep, and a
/// window no trial reached was never tested.
final class CallRace: Sendable {
    /// One trial's two spans (stamps from ``stamp()``, in thread order) and whether both
    /// threads kept their cores throughout.
    struct Trial: Sendable {
        var spans: [(start: Int, end: Int)]
        var kept: Bool
        /// Nanoseconds from thread 0's risky point to thread 1's (negative when thread 1's
        /// came first), when both bodies paused with ``pause(_:on:)``.
        var offset: Double?

        /// Whether the two spans overlapped while both threads ran: the calls ran against
        /// each other.
        var met: Bool { kept && spans[0].start < spans[1].end && spans[1].start < spans[0].end }
    }

    private let crew = ThreadCrew(2, pinned: true)
    private let stamps = Atomic<Int>(0)
    /// The origin of the threads' clock reads.
    private let epoch = ContinuousClock.now
    /// When each thread's pause last ended, in nanoseconds from ``epoch`` (-1: not in this
    /// trial); each is written and read by its own thread only.
    private let riskyAt0 = Atomic<Int>(-1)
    private let riskyAt1 = Atomic<Int>(-1)

    /// Records `thread`'s risky point (or -1 for none yet).
    private func setRisky(_ thread: Int, _ value: Int) {
        if thread == 0 { riskyAt0.store(value, ordering: .relaxed) } else { riskyAt1.store(value, ordering: .relaxed) }
    }

    /// `thread`'s risky point in this trial, or -1.
    private func risky(_ thread: Int) -> Int {
        thread == 0 ? riskyAt0.load(ordering: .relaxed) : riskyAt1.load(ordering: .relaxed)
    }
    /// How long the longer of a trial's two calls takes, pauses left out, in nanoseconds:
    /// an average that follows the latest trials whose threads kept their cores (one slow
    /// trial moves it only a little).
    private let reach = Atomic<Int>(0)
    private let bound: Duration

    /// A race whose trials give up (and abandon the crew) when the threads have not
    /// returned within `bound`.
    init(bound: Duration) { self.bound = bound }

    /// The next stamp: later calls, on any thread, get larger ones.
    func stamp() -> Int { stamps.add(1, ordering: .acquiringAndReleasing).newValue }

    /// How many steps of ``pause(_:)`` take a nanosecond, measured once.
    private static let stepsPerNanosecond: Double = {
        let steps = 200_000
        let start = ContinuousClock.now
        pause(steps)
        let elapsed = (ContinuousClock.now - start) / .nanoseconds(1)
        return elapsed > 0 ? Double(steps) / elapsed : 1
    }()

    /// The pause of `thread` in trial `trial`, in steps of ``pause(_:)``.
    func lag(trial: Int, thread: Int) -> Int {
        guard thread == (trial / 160) % 2 else { return 0 }
        let sweep = 1.5 * Double(max(reach.load(ordering: .relaxed), 100))
        // Every other sweep is quadratic, so the first few hundred nanoseconds (where a call
        // meets the other's first critical sections) get finer steps than the tail.
        let fraction = Double(trial % 160) / 160
        let shaped = (trial / 320) % 2 == 0 ? fraction : fraction * fraction
        return Int(shaped * sweep * Self.stepsPerNanosecond)
    }

    /// Waits `steps` steps of ``busySteps(_:)``: a pause finer than a clock read.
    static func pause(_ steps: Int) { busySteps(steps) }

    /// Waits `steps` steps, then reads the clock as `thread`'s risky point: a body calls it
    /// just before its risky point, so that the offset between the two is measured.
    func pause(_ steps: Int, on thread: Int) {
        Self.pause(steps)
        setRisky(thread, elapsed())
    }

    /// Nanoseconds from ``epoch`` to now.
    private func elapsed() -> Int { Int((ContinuousClock.now - epoch) / .nanoseconds(1)) }

    /// Runs `body(thread, lag)` on both threads at once; each body pauses its lag (with
    /// ``pause(_:)``) just before its risky point and returns its span. Nil when the threads
    /// had not returned in time.
    func run(
        trial: Int, _ body: @escaping @Sendable (_ thread: Int, _ lag: Int) -> (start: Int, end: Int)
    ) -> Trial? {
        run(trials: trial..<trial + 1) { thread, lag, _ in body(thread, lag) }?.first
    }

    /// Runs `body(thread, lag, trial)` for each of `trials` in turn on both threads, meeting
    /// at a barrier before each, in one dispatch of the crew: on a loaded machine waking the
    /// crew costs a slice of the kernel's time, which a batch pays once. Nil when the threads
    /// had not returned in time.
    func run(
        trials: Range<Int>,
        _ body: @escaping @Sendable (_ thread: Int, _ lag: Int, _ trial: Int) -> (start: Int, end: Int)
    ) -> [Trial]? {
        let barriers = trials.map { _ in Barrier() }
        let first = trials.lowerBound
        let spans = Box([[(start: Int, end: Int)]](repeating: [(0, 0), (0, 0)], count: trials.count))
        let kept = Box([[Bool]](repeating: [false, false], count: trials.count))
        let took = Box([Int](repeating: 0, count: trials.count))
        // Each thread's risky point, in nanoseconds from the epoch.
        let riskyPoints = Box([[Int]](repeating: [-1, -1], count: trials.count))
        let lags = trials.map { [lag(trial: $0, thread: 0), lag(trial: $0, thread: 1)] }
        let finished = crew.run(within: bound) { thread in
            for trial in trials {
                let slot = trial - first
                barriers[slot].arrive(of: 2)
                let mark = ThreadMark.now()
                self.setRisky(thread, -1)
                let begun = ContinuousClock.now
                let span = body(thread, lags[slot][thread], trial)
                let riskyPoint = self.risky(thread)
                let elapsed =
                    (ContinuousClock.now - begun) / .nanoseconds(1) - Double(lags[slot][thread])
                    / Self.stepsPerNanosecond
                let held = ThreadMark.now()?.evidence(since: mark) == .notPreempted
                spans.update { $0[slot][thread] = span }
                riskyPoints.update { $0[slot][thread] = riskyPoint }
                kept.update { $0[slot][thread] = held }
                took.update { $0[slot] = max($0[slot], Int(elapsed)) }
            }
        }
        guard finished else { return nil }
        let outcomes = zip(zip(spans.value, kept.value), riskyPoints.value).map { pair, risky in
            Trial(
                spans: pair.0, kept: !pair.1.contains(false),
                offset: risky.allSatisfy { $0 >= 0 } ? Double(risky[1] - risky[0]) : nil)
        }
        // Only trials whose threads kept their cores say how long the calls take: on a loaded
        // machine one preempted trial would stretch the sweep a thousandfold.
        for (longer, outcome) in zip(took.value, outcomes) where outcome.kept {
            let previous = reach.load(ordering: .relaxed)
            reach.store(previous == 0 ? longer : (7 * previous + min(longer, 4 * previous)) / 8, ordering: .relaxed)
        }
        return outcomes
    }
}

extension CallRace {
    /// Races trials in batches of `batch` until `wanted` of them met and those covered every
    /// offset at which one call can land on the other (``OffsetCoverage``), up to `most`
    /// trials (100,000 unless a part needs more) or 10 s, and on up to 30 s while the rate
    /// so far gets there by then (a subject whose calls are slow, not a machine that keeps
    /// the threads apart); less is
    /// inconclusive: "only 12 of 100,000 `pairs`", or the offsets no trial reached. For each
    /// batch,
    /// `prepare(trial)` sets each trial up on the rule's thread, `race(setup, thread, lag)`
    /// makes its two calls (one per thread, pausing its lag with ``pause(_:on:)`` just before
    /// its risky point, and returning its span), and `judge(first, batch)` judges what they
    /// did, throwing at the
    /// first violation. A batch larger than one suits calls whose trials do not share
    /// anything a call drains (a scheduler's queue shared by the whole batch does).
    func explore<Setup: Sendable>(
        _ ctx: RuleContext, until wanted: Int, pairs: String, batch: Int, most: Int = 100_000,
        prepare: (_ trial: Int) throws(RuleFailure) -> Setup,
        race: @escaping @Sendable (_ setup: Setup, _ thread: Int, _ lag: Int) -> (start: Int, end: Int),
        judge: (_ first: Int, _ batch: [(setup: Setup, outcome: Trial)]) throws(RuleFailure) -> Void
    ) throws(RuleFailure) {
        var met = 0
        var trials = 0
        var reached: [Trial] = []
        let start = ContinuousClock.now
        /// Whether to race on: within 10 s, or within 30 s where the rate so far will get there.
        let (budget, extended) = (Timing.evidenceBudget(.seconds(10)), Timing.evidenceBudget(.seconds(30)))
        func inBudget() -> Bool {
            let elapsed = ContinuousClock.now - start
            guard elapsed >= budget else { return true }
            return elapsed < extended && met > 0 && elapsed * (Double(wanted) / Double(met)) < extended
        }
        // Coverage is counted once enough met, then each time the trials grew by a quarter:
        // it sorts every trial so far.
        var covered = OffsetCoverage([])
        var nextCount = 0
        func isDone() -> Bool {
            guard met >= wanted, trials >= nextCount else { return false }
            covered = OffsetCoverage(reached)
            nextCount = trials + max(8 * batch, trials / 4)
            return covered.isComplete
        }
        while !isDone() && trials < most && inBudget() {
            let range = trials..<trials + batch
            var setups: [Setup] = []
            for trial in range { setups.append(try prepare(trial)) }
            let prepared = setups
            guard
                let outcomes = run(
                    trials: range, { thread, lag, trial in race(prepared[trial - range.lowerBound], thread, lag) })
            else {
                throw ctx.hang(
                    """
                    two calls racing each other (\(pairs)) had not returned within \(ctx.timing.mustHappen), in \
                    trials \(range.lowerBound)–\(range.upperBound - 1)
                    """
                )
            }
            try judge(trials, Array(zip(setups, outcomes)).map { (setup: $0, outcome: $1) })
            met += outcomes.count { $0.met }
            reached += outcomes.filter { $0.kept && $0.offset != nil }
            trials += batch
        }
        try ctx.requireExercised(met >= wanted, "only \(met) of \(trials) \(pairs)")
        if !covered.isComplete { covered = OffsetCoverage(reached) }
        try ctx.requireExercised(
            covered.isComplete,
            """
            \(met) of \(trials) \(pairs); \(covered.shortfall): the threads' release from the barrier was skewed past \
            what the pauses sweep
            """
        )
    }
}
