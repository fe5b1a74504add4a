import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// How the cost of an action grows with the work queued at once, n = 10³ … 10⁶, and the
    /// exponent of a power law fitted to it.
    public static let growth = StressScenario(
        .growth,
        """
        How an action's cost grows with the work queued at once, n = 10³ … 10⁶. Virtual-time subjects: n actions at \
        distinct future times (scheduled out of time order), then one advance past them all. Trampoline subjects: one \
        action schedules n nested ones, which queue until it returns. Both are timed by the measuring thread's \
        processor time when the last action ran on that thread (time the thread spent preempted is not the \
        subject's), else by the wall clock. Any other scheduler: producer threads fan n actions in between them, \
        timed by the processor time all the worker's threads spent from the first schedule to the last run (a busy \
        machine's preemptions stretch the wall clock, not the work). The exponent k of time ∝ nᵏ is fitted over the \
        sizes measured (sizes half a decade apart; from the third on, a size whose round is predicted, by processor \
        time or wall clock, to outlast both the budget left and 3 s, or ten budgets when that is less, is not \
        started): over 1.1 grows like n log n or a cache's worth, over 1.3 is superlinear (an array re-sorted on \
        every insert, say). A fan-in fitted from rounds in which the kernel preempted the process is measured again \
        without contention (the same sizes queued by one thread behind an action holding the worker, then drained \
        alone), and judged by that exponent: a preempted lock holder makes its waiters spin, which costs processor \
        time that grows with a round's length, not with what is queued, and a preempted small size flattens the fit \
        as much.
        """,
        outcomes: GrowthOutcome.self
    ) { ctx throws(StressFailure) in
        let capabilities = ctx.subject.capabilities
        let workload: GrowthCurve.Workload =
            capabilities.contains(.virtualTime) ? .drain : capabilities.contains(.trampoline) ? .nested : .fanIn
        var measured: [GrowthCurve.Point] = []
        for size in GrowthCurve.sizes {
            // The second size is always measured: a fit needs two, and it is only about
            // three times the first (a quadratic subject's 10⁴ would be a hundred times 10³).
            // From the longer of the last size's two times: a busy machine stretches a round's
            // wall clock past its processor time, and a fan-in's threads spend processor time
            // faster than the wall clock runs (the quiet fit, from the first sizes, falls short).
            if measured.count >= 2, let last = measured.last {
                let exponent = GrowthCurve.exponent(measured.map { ($0.size, $0.seconds) }) ?? 1
                let predicted =
                    max(last.seconds, last.wallSeconds) * pow(Double(size) / Double(last.size), max(exponent, 1))
                let left = (ctx.duration - (ContinuousClock.now - ctx.started)).timeInterval
                if predicted > max(left, min(GrowthCurve.sizeBound, ctx.duration.timeInterval * 10)) { break }
            }
            var rounds: [GrowthCurve.Point] = []
            // A slow subject's small sizes already take long: half a second of rounds is enough.
            while rounds.count < GrowthCurve.rounds(size), rounds.map(\.wallSeconds).reduce(0, +) < 0.5 {
                rounds.append(try workload.measure(size, ctx))
                ctx.addOperations(size)
            }
            measured.append(GrowthCurve.median(rounds))
        }
        var curve = GrowthCurve(
            workload: workload, sizes: measured.map(\.size),
            nanosecondsPerAction: measured.map { $0.seconds * 1e9 / Double($0.size) },
            exponent: GrowthCurve.exponent(measured.map { ($0.size, $0.seconds) }))
        guard let exponent = curve.exponent else {
            ctx.setGrowth(curve)
            throw StressFailure(
                "only \(measured.count) size(s) could be measured within the budget: no exponent to fit")
        }
        // A fan-in's processor time includes what its threads spent contending, and on a
        // machine that takes cores away, a preempted lock holder makes every waiter spin
        // (Swift's `Mutex` spins before it blocks): the larger sizes, whose rounds last long
        // enough to be preempted, cost more per action although the subject does no more
        // work. It errs the other way as well: a loaded make test fitted the array-FIFO
        // mutant at 0.60 over 10³ to 31,623, its smallest sizes the dearest per action. So a
        // fit from rounds the machine preempted is measured again without the contention, the
        // same sizes queued by one thread while the scheduler's worker is held, then drained
        // alone, and the verdict follows that measurement.
        var judged = exponent
        if workload == .fanIn, capabilities.contains(.asynchronous), measured.contains(where: { $0.preempted }) {
            // Over a decade at least: a loaded fan-in may reach only 10³ and 3,162, over which
            // an array FIFO's shifts in a debug build grow the held drain too little to call,
            // and a held drain of 10⁴ takes milliseconds.
            let heldSizes = GrowthCurve.sizes.filter { $0 <= max(measured.last?.size ?? 0, GrowthCurve.heldSpan) }
            var held: [GrowthCurve.Point] = []
            for size in heldSizes {
                var rounds: [GrowthCurve.Point] = []
                for _ in 0..<GrowthCurve.rounds(size) { rounds.append(try GrowthCurve.Workload.measureHeld(size, ctx)) }
                held.append(GrowthCurve.median(rounds))
            }
            curve.heldExponent = GrowthCurve.exponent(held.map { ($0.size, $0.seconds) })
            judged = curve.heldExponent ?? exponent
        }
        ctx.setGrowth(curve)
        ctx.setMetric(.growthExponent, judged)
        ctx.record(
            judged > GrowthCurve.superlinear
                ? GrowthOutcome.superlinear
                : judged > GrowthCurve.linear ? GrowthOutcome.logFactor : GrowthOutcome.linear)
    }
}

extension GrowthCurve {
    /// The sizes tried, in order, while the next is predicted to fit in the budget: half a
    /// decade apart, so that a slow subject still gets a few.
    static let sizes = [1_000, 3_162, 10_000, 31_623, 100_000, 316_228, 1_000_000]
    /// A size predicted to take longer than this (and than the budget left, and ten budgets)
    /// is not started: a quadratic subject's 10⁶ would take hours.
    static let sizeBound = 3.0
    /// The largest size a held drain measures however few sizes the fan-in reached.
    static let heldSpan = 10_000
    /// One round of a size: the time it is judged by (see ``Workload``) and its wall clock,
    /// which decides whether a larger size still fits in the budget.
    struct Point {
        var size: Int
        var seconds: Double
        var wallSeconds: Double
        /// Whether the kernel took a core from one of the process's threads during the round.
        var preempted = false
    }

    /// The round of median time among `rounds` (at least one): what a size is judged by.
    static func median(_ rounds: [Point]) -> Point {
        rounds.sorted { $0.seconds < $1.seconds }[rounds.count / 2]
    }

    /// Rounds per size: a thousand actions take well under a millisecond, so small sizes are
    /// measured more often and their median taken.
    static func rounds(_ size: Int) -> Int {
        switch size {
        case ...1_000: 15
        case ...10_000: 5
        case ...100_000: 3
        default: 1
        }
    }
}

/// What a run of `growth` observes; the raw values are the names reports use.
public enum GrowthOutcome: String, StressOutcome {
    case linear
    case logFactor = "log-factor"
    case superlinear, lost

    public var judgement: StressScenario.Judgement {
        switch self {
        case .linear: .acceptable("the cost per action does not grow with the work queued (exponent ≤ 1.1)")
        case .logFactor:
            .interesting("the cost per action grows like log n or with the cache's reach (exponent 1.1–1.3)")
        case .superlinear:
            .forbidden(
                "the work grows faster than n log n (exponent over 1.3): an action costs more the more are queued")
        case .lost: .forbidden("an action never ran")
        }
    }
}
