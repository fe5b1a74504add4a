import Foundation
import SchedulerProbes
import Schedulers

/// TIM-16: after a stall longer than its period, a repeating timer runs the ticks it missed
/// as one run, then keeps its grid (GCD timer sources, Foundation's `Timer`; the suite's
/// choice), unless it declared that it runs every missed tick (`.missedTicks(.burst)`).
///
/// The stall is the timer's own second tick, whose action runs ``stall`` (3.5 intervals):
/// three grid points pass while it runs. The judgement is by pigeonhole, not by timing: cut
/// the time after the stall into slots, one per grid interval. A timer that merges what it
/// missed runs at most once per slot (one run for everything due since its last, and it is
/// never early), however late the machine makes it; a timer that runs every missed tick owes
/// more runs than slots passed, so some slot holds two of them, wherever the machine's delays
/// put them. A coalescing timer shows it coalesced only when its merged run came before the
/// next grid point (a run later than that merges that point too, and looks like a timer that
/// drops what it missed): an attempt without that run is measured again, then inconclusive.
struct RepeatingMissedTicks {
    let interval = Duration.milliseconds(40)
    /// The interval in nanoseconds: one slot.
    private var step: UInt64 { UInt64((try? interval.checkedNanoseconds()) ?? 1) }
    /// The second tick's action: 3.5 intervals, so its end falls mid-slot.
    var stall: Duration { interval * 3.5 }
    /// Whole slots watched after the one the stall ends in.
    let slotsAfter = 3
    let attempts = 3
    /// More runs than this in one attempt end it: a timer that runs ticks back to back must
    /// not keep the rule busy.
    let runLimit = 64
    /// How far before its grid point a run still counts as that point's.
    static let earlySlack = Duration.milliseconds(2)
    /// A tick this close after its grid point came unhindered (as in TIM-5).
    static let promptBand = Duration.milliseconds(5)

    struct Attempt {
        /// The timer's start, grid point 0.
        var begin = SchedulerTime.zero
        /// When each tick's action started, by the subject's clock.
        var starts: [SchedulerTime] = []
        /// When the stalling action returned.
        var stallEnd: SchedulerTime?
        var error: String?
    }

    func judge(_ ctx: RuleContext) throws(RuleFailure) {
        let policy = ctx.subject.declared.missedTicks
        var inconclusive: [String] = []
        for _ in 0..<attempts {
            let attempt = try measure(ctx)
            if let error = attempt.error { throw RuleFailure(error, kind: .error) }
            switch verdict(attempt, policy: policy, fixedDelay: ctx.subject.declared.repeatPolicy == .fixedDelay) {
            case .passed: return
            case .failed(let message): throw RuleFailure(message)
            case .inconclusive(let why): if !inconclusive.contains(why) { inconclusive.append(why) }
            }
        }
        try ctx.requireExercised(false, "in \(attempts) attempts: \(inconclusive.joined(separator: "; "))")
    }

    enum Verdict: Equatable {
        case passed
        case failed(String)
        case inconclusive(String)
    }

    /// What one attempt shows.
    func verdict(_ attempt: Attempt, policy: MissedTicks, fixedDelay: Bool) -> Verdict {
        guard let end = attempt.stallEnd, attempt.starts.count >= 2 else {
            return .inconclusive("the stalling tick never returned")
        }
        // Grid point k is start + k × interval. A run a hair before its point still counts for
        // it (early ticks are TIM-5's to judge), so a punctual timer is never split across slots.
        let start = attempt.begin.nanoseconds - UInt64((try? Self.earlySlack.checkedNanoseconds()) ?? 0)
        let slotOfEnd = (end.nanoseconds - start) / step
        let missed = Int(slotOfEnd) - 1
        guard missed >= 2 else {
            return .inconclusive("the stall covered only \(missed) grid point(s): nothing to merge")
        }
        let during = attempt.starts.dropFirst(2).filter { $0 < end }
        guard during.isEmpty else {
            return .inconclusive(
                """
                \(during.count) tick(s) started while the stalling tick still ran: the timer runs its ticks side by \
                side, so none was missed
                """
            )
        }
        // Runs after the stall, per slot: slot 0 is the rest of the one the stall ended in.
        // Slots begin `earlySlack` before their grid points, unless `aligned`.
        func runsPerSlot(aligned: Bool) -> [Int] {
            let origin = aligned ? attempt.begin.nanoseconds : start
            var perSlot = [Int](repeating: 0, count: slotsAfter + 1)
            for run in attempt.starts.dropFirst(2) where run.nanoseconds >= origin {
                let slot = Int((run.nanoseconds - origin) / step) - Int(slotOfEnd)
                if slot >= 0, slot < perSlot.count { perSlot[slot] += 1 }
            }
            return perSlot
        }
        let perSlot = runsPerSlot(aligned: false)
        // When each run came, in milliseconds after the stall ended, with the grid points: what
        // an author needs to see which ticks ran together.
        let after = attempt.starts.dropFirst(2).map { run in
            String(format: "%.1f", Double(run.nanoseconds - end.nanoseconds) / 1e6)
        }
        let grid = (1...slotsAfter + 1).map { k in
            String(
                format: "%.1f",
                (Double((slotOfEnd + UInt64(k)) * step + attempt.begin.nanoseconds) - Double(end.nanoseconds)) / 1e6)
        }
        let timeline =
            """
            runs at +[\(after.joined(separator: ", "))] ms after the stall, grid points at \
            +[\(grid.joined(separator: ", "))] ms
            """
        let firstGridAfter = Int64((slotOfEnd + 1) * step + attempt.begin.nanoseconds)
        let stalled = "after a stall of \(stall) (\(missed) grid points passed while tick 1's action ran; \(timeline))"
        let crowded = perSlot.firstIndex { $0 >= 2 }
        // A run in the last `earlySlack` before a grid point may be that point's, a hair early,
        // or the previous point's, late: a merging timer then runs again at the point, and
        // Dispatch does so a fraction of a millisecond later. Two runs in one interval are a
        // fault only if they are so with the slot put on either side of that doubt.
        let crowdedEitherWay = crowded.flatMap { slot in
            runsPerSlot(aligned: true).contains { $0 >= 2 } ? slot : nil
        }
        // A stall that ended in the last `earlySlack` before a grid point has that point's own
        // run in slot 0, where a merged run is looked for: the two cannot be told apart.
        let slack = UInt64((try? Self.earlySlack.checkedNanoseconds()) ?? 0)
        let beforeNextPoint = step - (end.nanoseconds - attempt.begin.nanoseconds) % step
        let endedAtAPoint = Verdict.inconclusive(
            """
            the stall ended \(Duration.nanoseconds(Int64(beforeNextPoint))) before a grid point, so a run merged at \
            its end could not be told from that point's own
            """
        )
        switch policy {
        case .coalesced:
            if let slot = crowdedEitherWay {
                return .failed(
                    """
                    \(stalled), \(perSlot[slot]) ticks ran within one interval \
                    (\(slot == 0 ? "before the next grid point" : "\(slot) intervals on")): missed ticks were run one \
                    by one, not merged into one run (a timer that does so by design declares \
                    \(Declaration.missedTicks(.burst)))
                    """
                )
            }
            if fixedDelay {
                // A fixed delay has no missed ticks: the next one is due an interval after the stall.
                return perSlot.contains(1)
                    ? .passed : .inconclusive("no tick ran in the \(slotsAfter + 1) intervals after the stall")
            }
            if beforeNextPoint <= slack { return endedAtAPoint }
            return perSlot[0] == 1
                ? .passed
                : .inconclusive(
                    """
                    no tick ran between the stall's end and the next grid point: a merged run that late merges that \
                    point too, so merging could not be told from dropping (a timer that drops missed ticks by design \
                    declares \(Declaration.missedTicks(.skipped)))
                    """
                )
        case .skipped:
            if let slot = crowdedEitherWay {
                return .failed(
                    """
                    \(stalled), \(perSlot[slot]) ticks ran within one interval, though the subject declares \
                    \(Declaration.missedTicks(.skipped))
                    """
                )
            }
            if beforeNextPoint <= slack { return endedAtAPoint }
            if perSlot[0] == 1 {
                return .failed(
                    """
                    \(stalled), a tick ran before the next grid point: the missed ticks were merged into one run, \
                    though the subject declares \(Declaration.missedTicks(.skipped)) (a timer that merges them \
                    declares nothing)
                    """
                )
            }
            // Dropping shows only when the timer was prompt: its next tick near its grid point.
            let next = attempt.starts.dropFirst(2).first.map {
                Duration.nanoseconds(Int64($0.nanoseconds) - firstGridAfter)
            }
            return next.map { $0 <= Self.promptBand }
                == true
                ? .passed
                : .inconclusive(
                    """
                    the first tick after the stall came \(next.map { "\($0)" } ?? "never") after the next grid point: \
                    a timer that late cannot show it dropped what it missed
                    """
                )
        case .burst:
            let runs = perSlot.reduce(0, +)
            if crowdedEitherWay != nil || runs >= missed + slotsAfter { return .passed }
            if perSlot.allSatisfy({ $0 == 1 }) {
                return .failed(
                    """
                    \(stalled), the timer ran once per interval, \(runs) runs in \(slotsAfter + 1) intervals: it \
                    merged the missed ticks though it declares \(Declaration.missedTicks(.burst))
                    """
                )
            }
            return .inconclusive(
                """
                \(runs) runs in the \(slotsAfter + 1) intervals after the stall: too few for a burst, and not one in \
                each interval (two shared the one the stall ended in, or one had none)
                """
            )
        }
    }

    /// One timer: tick 1 stalls, then the runs are watched for ``slotsAfter`` more slots.
    private func measure(_ ctx: RuleContext) throws(RuleFailure) -> Attempt {
        let scheduler = ctx.makeScheduler()
        let begin = try ctx.deadline(.milliseconds(10), on: scheduler)
        let (interval, stall, slotsAfter, runLimit, step) = (
            self.interval, self.stall, self.slotsAfter, self.runLimit, self.step
        )
        let state = Lock(Attempt(begin: begin))
        let finished = Signal()
        let handle = try ctx.attempt("repeating every \(interval)") { () throws(SchedulerError) in
            try scheduler.schedule(at: begin, repeatingEvery: interval, leeway: .zero) {
                let now = scheduler.now
                let tick = state.withLock { state -> Int in
                    state.starts.append(now)
                    return state.starts.count - 1
                }
                if tick == 1 {
                    Thread.sleep(forTimeInterval: Double((try? stall.checkedNanoseconds()) ?? 0) / 1e9)
                    let end = scheduler.now
                    state.withLock { $0.stallEnd = end }
                    return
                }
                let done = state.withLock { state -> Bool in
                    guard let end = state.stallEnd else { return false }
                    let watchedUntil = ((end.nanoseconds - begin.nanoseconds) / step + UInt64(slotsAfter) + 1) * step
                    return now.nanoseconds - begin.nanoseconds >= watchedUntil || state.starts.count >= runLimit
                }
                if done, !finished.hasFired { finished.fire() }
            }
        }
        defer { handle.dispose() }
        try ctx.waitFor(finished, on: scheduler, "the ticks of \(slotsAfter + 1) intervals after a stall")
        return state.withLock { $0 }
    }
}
