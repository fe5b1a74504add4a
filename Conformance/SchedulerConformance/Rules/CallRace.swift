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
/// evidence.
final class CallRace: Sendable {
    /// One trial's two spans (stamps from ``stamp()``, in thread order) and whether both
    /// threads kept their cores throughout.
    struct Trial: Sendable {
        var spans: [(start: Int, end: Int)]
        var kept: Bool

        /// Whether the two spans overlapped while both threads ran: the calls ran against
        /// each other.
        var met: Bool { kept && spans[0].start < spans[1].end && spans[1].start < spans[0].end }
    }

    private let crew = ThreadCrew(2, pinned: true)
    private let stamps = Atomic<Int>(0)
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
        let lags = trials.map { [lag(trial: $0, thread: 0), lag(trial: $0, thread: 1)] }
        let finished = crew.run(within: bound) { thread in
            for trial in trials {
                let slot = trial - first
                barriers[slot].arrive(of: 2)
                let mark = ThreadMark.now()
                let begun = ContinuousClock.now
                let span = body(thread, lags[slot][thread], trial)
                let elapsed =
                    (ContinuousClock.now - begun) / .nanoseconds(1) - Double(lags[slot][thread])
                    / Self.stepsPerNanosecond
                let held = ThreadMark.now()?.evidence(since: mark) == .notPreempted
                spans.update { $0[slot][thread] = span }
                kept.update { $0[slot][thread] = held }
                took.update { $0[slot] = max($0[slot], Int(elapsed)) }
            }
        }
        guard finished else { return nil }
        let outcomes = zip(spans.value, kept.value).map { Trial(spans: $0, kept: !$1.contains(false)) }
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
    /// Races trials in batches of `batch` until `wanted` of them met, up to 20,000 trials or
    /// 10 s, and on up to 30 s while the rate so far gets there by then (a subject whose calls
    /// are slow, not a machine that keeps the threads apart); fewer met is inconclusive:
    /// "only 12 of 20,000 `pairs`". For each batch,
    /// `prepare(trial)` sets each trial up on the rule's thread, `race(setup, thread, lag)`
    /// makes its two calls (one per thread, pausing its lag just before its risky point, and
    /// returning its span), and `judge(first, batch)` judges what they did, throwing at the
    /// first violation. A batch larger than one suits calls whose trials do not share
    /// anything a call drains (a scheduler's queue shared by the whole batch does).
    func explore<Setup: Sendable>(
        _ ctx: RuleContext, until wanted: Int, pairs: String, batch: Int,
        prepare: (_ trial: Int) throws(RuleFailure) -> Setup,
        race: @escaping @Sendable (_ setup: Setup, _ thread: Int, _ lag: Int) -> (start: Int, end: Int),
        judge: (_ first: Int, _ batch: [(setup: Setup, outcome: Trial)]) throws(RuleFailure) -> Void
    ) throws(RuleFailure) {
        var met = 0
        var trials = 0
        let start = ContinuousClock.now
        /// Whether to race on: within 10 s, or within 30 s where the rate so far will get there.
        func inBudget() -> Bool {
            let elapsed = ContinuousClock.now - start
            guard elapsed >= .seconds(10) else { return true }
            return elapsed < .seconds(30) && met > 0 && elapsed * (Double(wanted) / Double(met)) < .seconds(30)
        }
        while met < wanted && trials < 20_000 && inBudget() {
            let range = trials..<trials + batch
            var setups: [Setup] = []
            for trial in range { setups.append(try prepare(trial)) }
            let prepared = setups
            guard
                let outcomes = run(
                    trials: range, { thread, lag, trial in race(prepared[trial - range.lowerBound], thread, lag) })
            else {
                throw ctx.hang(
                    "two calls racing each other (\(pairs)) had not returned within \(ctx.timing.mustHappen), in trials \(range.lowerBound)–\(range.upperBound - 1)"
                )
            }
            try judge(trials, Array(zip(setups, outcomes)).map { (setup: $0, outcome: $1) })
            met += outcomes.count { $0.met }
            trials += batch
        }
        try ctx.requireExercised(met >= wanted, "only \(met) of \(trials) \(pairs)")
    }
}

/// A spin barrier without locks, so that the threads leave it together.
final class Barrier: Sendable {
    private let arrived = Atomic<Int>(0)

    /// A barrier no thread has reached.
    init() {}

    /// Waits, spinning, until `count` threads have arrived.
    func arrive(of count: Int) {
        arrived.add(1, ordering: .acquiringAndReleasing)
        while arrived.load(ordering: .acquiring) < count {}
    }
}
