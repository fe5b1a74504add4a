import Dispatch
import SchedulerProbes
import Schedulers

extension RepeatingGrid {
    /// What a grid's failure adds when its ticks keep a fixed delay (``looksFixedDelay``).
    static let fixedDelayHint = """
        . Every tick came an interval after the action before it returned: a fixed delay. A scheduler that \
        repeats so by design declares \(Declaration.repeatPolicy(.fixedDelay))
        """

    /// Whether an undeclared timer's ticks keep a fixed delay (nil: too few ticks to tell): no
    /// tick sooner than an interval after the action before it ended, and two periods within
    /// the allowance of that (or of what held back the suite's timers or the tick's thread).
    /// Two, not most: a loaded machine lengthens periods past what the references saw (a
    /// stall of the subject's own thread, a late hand-off to it) but never shortens one, so
    /// the periods a quiet moment left alone show the timer's own rule.
    func looksFixedDelay(
        times: [UInt64], actionEnds: [Int: UInt64], waits: CoreWaits, allowance: UInt64,
        lateness: (UInt64, UInt64) -> UInt64
    ) -> Bool? {
        guard actionLength > .zero else { return false }
        let (step, slack) = (UInt64(interval.nanoseconds), UInt64(Self.mappingSlack.nanoseconds))
        let gaps = Array(zip(times.map { $0 + UInt64(actionLength.nanoseconds) }, times.dropFirst()))
        guard gaps.count >= 3 else { return nil }
        let onDelay = gaps.enumerated().filter { k, gap in
            let waited = waits.waited(tick: k + 1, since: actionEnds[k] ?? gap.0)?.bound ?? 0
            return gap.1 <= gap.0 + step + allowance + max(lateness(gap.0, gap.1), waited)
        }.count
        return gaps.allSatisfy { end, next in next + slack >= end + step } && onDelay >= 2
    }

    /// The declared fixed delay (``RepeatPolicy/fixedDelay``): the first tick within the
    /// allowance of the start (`lateness` between two instants is the grid references'
    /// noise), and each next one an interval after the action before it returned, never
    /// earlier and no later than the allowance past the latest of the suite's timers armed
    /// for that period (``PeriodReferences``). A period stretched by less than the allowance
    /// shows in every one: the median tick past those timers must be within the leeway.
    func judgeFixedDelay(
        _ ctx: RuleContext, times: [UInt64], periods: [Period], first: UInt64, allowance: UInt64,
        lateness: (UInt64, UInt64) -> UInt64
    ) throws(RuleFailure) {
        let slack = UInt64(Self.mappingSlack.nanoseconds)
        let step = UInt64(interval.nanoseconds)
        guard times.count >= 3 else {
            // Too few ticks is the timer's fault only if the machine kept time meanwhile.
            let noise = lateness(first, times.last ?? first)
            try ctx.requireExercised(
                noise <= UInt64(leeway.nanoseconds),
                """
                the suite's timers were \(milliseconds(noise)) late while the subject's ticked only \(times.count) \
                time(s)
                """
            )
            throw RuleFailure(
                """
                the timer ticked \(times.count) time(s) before the rule's last grid point, \
                \(milliseconds(times.last.map { $0 &- first } ?? 0)) after its start, while the suite's timers kept \
                time: too few for the fixed delay the subject declares (\(Declaration.repeatPolicy(.fixedDelay)))
                """
            )
        }
        var report: [String] = []
        var excess: [Int64] = []
        if times[0] + slack < first || times[0] > first + allowance + lateness(first, times[0]) {
            report.append(
                "the first tick came "
                    + (times[0] < first
                        ? "\(milliseconds(first - times[0])) before" : "\(milliseconds(times[0] - first)) after")
                    + " its start"
            )
        }
        var judged = 0
        for (k, period) in periods.enumerated() {
            let due = period.due(step)
            let noise = period.latest &- due
            // A tick within the leeway of its due time needed no excuse, however noisy the
            // suite's timers were: only a later one leans on them.
            if noise <= UInt64(leeway.nanoseconds) || period.next <= due + UInt64(leeway.nanoseconds) { judged += 1 }
            excess.append(Int64(bitPattern: period.next &- period.latest))
            if period.next + slack < due {
                report.append(
                    """
                    tick \(k + 1) came \(milliseconds(due - period.next)) before an interval had passed since tick \
                    \(k)'s action returned
                    """
                )
            } else if period.next > period.latest + allowance {
                report.append(
                    """
                    tick \(k + 1) came \(milliseconds(period.next - due)) after an interval had passed since tick \
                    \(k)'s action returned (the suite's timers armed once the subject was done with tick \(k) fired, \
                    or a plain action they handed it ran, \(milliseconds(noise)) after that)
                    """
                )
            }
        }
        let median = excess.sorted()[excess.count / 2]
        if median > leeway.nanoseconds {
            report.append(
                """
                the median tick came \(milliseconds(UInt64(median))) after the suite's timers armed for its period, \
                beyond the leeway: every period is stretched
                """
            )
        }
        try ctx.expect(
            report.isEmpty,
            """
            a timer every \(milliseconds(step)) with leeway \(milliseconds(UInt64(leeway.nanoseconds))) is off the \
            fixed delay the subject declares (\(Declaration.repeatPolicy(.fixedDelay))) over its \(times.count) \
            ticks: \(report.prefix(4).joined(separator: "; "))
            """
        )
        try ctx.requireExercised(
            judged * 2 >= periods.count,
            """
            \(periods.count - judged) of \(periods.count) ticks came later than the leeway after their due time while \
            the suite's timers armed for the period, or a plain action they handed the subject, were as late: the \
            machine was too noisy to judge the timer
            """
        )
    }
}
