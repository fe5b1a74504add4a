import Dispatch
import SchedulerProbes
import Schedulers

/// TIM-6 and TIM-12: every point of a repeating timer's grid, `start + k × interval`, must
/// get a tick no later than `leeway` + ``pathAllowance`` + what the machine did to the suite's
/// own timer at that same point.
///
/// The machine's noise is measured, not tolerated: two reference timers of the suite (Dispatch
/// timers on queues of their own, one with zero leeway, one with the subject's leeway) run on
/// the same grid at the same time, and the first hands a plain `schedule` to the subject at
/// each tick; the latest of the three at grid point k widens the window for point k, and only
/// for it. The second is there because Dispatch treats a timer with leeway apart: in a loaded
/// test process one was seen 280 ms late while a zero-leeway timer beside it kept time, so a
/// correct timer that asks for a leeway is judged against a timer that asks for the same. A stall that delays the
/// subject's tick also delays the reference, or the subject's own queue (a queue whose target
/// has no thread free runs nothing, timers or not), so it is excused; a tick that is late
/// while both were on time is the timer's own doing. The leeway asked
/// for is large against that noise, so a period stretched by a leeway (or an action's length)
/// leaves some grid point uncovered within two or three ticks, far outside it.
///
/// Judging points rather than ticks is what keeps merged ticks (a stall longer than the
/// interval, which Dispatch coalesces into one run) from reading as drift: the merged tick
/// covers the later point, and the earlier one is excused by the reference's evidence of
/// the stall, or failed when there was none. A point whose reference came later than a whole
/// leeway was too noisy to judge; a run where fewer than half the points could be judged is
/// inconclusive.
struct RepeatingGrid {
    /// Room for the subject's path from its timer firing to the action, beyond the
    /// reference's own path: with every core busy (and a compiler beside), one thread's
    /// wake-up was seen up to 7.2 ms later than the reference's at the same grid point.
    static let pathAllowance = Duration.milliseconds(8)
    /// A tick this much before its grid point still covers it: the mapping of the subject's
    /// clock onto the suite's is read in a bracket this narrow (early ticks are TIM-5's).
    static let mappingSlack = Duration.microseconds(500)

    let interval: Duration
    let leeway: Duration
    let points: Int
    /// How long each tick's action runs: a timer re-armed from the action's end drifts by it.
    let actionLength: Duration

    /// Runs the timer and the reference over `points` grid points and judges each.
    func judge(_ ctx: RuleContext) throws(RuleFailure) {
        let scheduler = ctx.makeScheduler()
        let lead = Duration.milliseconds(5)
        let (subjectNow, anchor) = Self.anchor(scheduler)
        let start = try ctx.attempt("start") { () throws(SchedulerError) in try subjectNow.advanced(by: lead) }
        let step = UInt64(interval.nanoseconds)
        let first = anchor + UInt64(lead.nanoseconds)
        let last = first + step * UInt64(points - 1)
        let slack = UInt64(Self.mappingSlack.nanoseconds)

        let reference = ReferenceTimer(first: first, interval: interval, leeway: .zero, until: last) { hop in
            _ = scheduler.schedule(hop)
        }
        let alike = ReferenceTimer(first: first, interval: interval, leeway: leeway, until: last, hop: nil)
        defer {
            reference.cancel()
            alike.cancel()
        }
        let ticks = Recorder<UInt64>()
        let done = Signal()
        let actionLength = UInt64(self.actionLength.nanoseconds)
        let handle = try ctx.attempt("repeating every \(interval), leeway \(leeway)") { () throws(SchedulerError) in
            try scheduler.schedule(at: start, repeatingEvery: interval, leeway: leeway) {
                let at = uptime()
                ticks.record(at)
                if at + slack >= last, !done.hasFired { done.fire() }
                while uptime() < at + actionLength {}
            }
        }
        try ctx.waitFor(done, on: scheduler, "a tick at or after grid point \(points - 1)")
        handle.dispose()
        try ctx.expect(
            reference.done.wait(ctx.timing.mustHappen), "the suite's reference timer did not reach the last grid point",
            kind: .error)
        try ctx.expect(
            alike.done.wait(ctx.timing.mustHappen),
            "the suite's reference timer with the subject's leeway did not reach the last grid point", kind: .error)

        let times = ticks.all
        let referenceTimes = reference.times
        let alikeTimes = alike.times
        let hopTimes = reference.hops
        let tickEnds = times.map { $0 + actionLength }
        let allowance = UInt64((leeway + Self.pathAllowance).nanoseconds)
        // The hop's own delay counts from when the subject was free to run it: on a serial
        // scheduler it waits for a tick's action that was running, which is no stall.
        func hopDelay(at point: UInt64) -> UInt64 {
            hopTimes.first { $0 >= point }.map { hop in hop - max(point, tickEnds.last { $0 <= hop } ?? point) } ?? 0
        }
        if ctx.subject.declared.repeatPolicy == .fixedDelay {
            return try judgeFixedDelay(
                ctx, times: times, first: first, allowance: allowance,
                lateness: { from, to in
                    // The noise between two instants: the latest the suite's timers, or a plain
                    // action they handed the subject, were at a grid point in between.
                    (0..<points).map { first + step * UInt64($0) }.filter { $0 >= from && $0 <= to }.compactMap {
                        point in
                        guard let at = referenceTimes.first(where: { $0 >= point }),
                            let alikeAt = alikeTimes.first(where: { $0 >= point })
                        else { return nil }
                        return max(max(at, alikeAt) - point, hopDelay(at: point))
                    }.max() ?? 0
                })
        }
        var judged = 0
        var report: [String] = []
        for k in 0..<points {
            let point = first + step * UInt64(k)
            guard let referenceAt = referenceTimes.first(where: { $0 >= point }),
                let alikeAt = alikeTimes.first(where: { $0 >= point })
            else { continue }
            let hopDelay = hopDelay(at: point)
            let machine = max(referenceAt, alikeAt) - point
            let coveredWithin = { (noise: UInt64) in
                times.contains { $0 + slack >= point && $0 <= point + allowance + noise }
            }
            // The subject's queue is called as a witness only for a tick that the machine's
            // noise alone does not excuse; a point excused by a delay longer than the leeway
            // was not judged.
            let witnessNeeded = !coveredWithin(machine)
            let noise = witnessNeeded ? max(machine, hopDelay) : machine
            if noise <= UInt64(leeway.nanoseconds) { judged += 1 }
            if !witnessNeeded || coveredWithin(noise) { continue }
            let next = times.first { $0 + slack >= point }.map { "came \(ms($0 &- point)) after it" } ?? "never came"
            report.append(
                "point \(k): the tick \(next), the references \(ms(machine)), a plain action on the subject \(ms(hopDelay))"
            )
        }
        // Every gap an interval after the action before it ended: the other choice, undeclared.
        let gaps = zip(tickEnds, times.dropFirst()).map { Int64(bitPattern: $1 &- $0) - Int64(step) }
        let fixedDelay =
            actionLength > 0 && gaps.count >= 3
            && gaps.allSatisfy { $0 >= -Int64(slack) && $0 <= Int64(allowance) }
        try ctx.expect(
            report.isEmpty,
            "\(report.count) of \(points) grid points of a timer every \(ms(step)) with leeway \(ms(UInt64(leeway.nanoseconds))) got no tick within leeway + \(ms(UInt64(Self.pathAllowance.nanoseconds))) + the latest of the suite's own timers (zero leeway and the same leeway) and a plain action it handed the subject there (\(report.prefix(4).joined(separator: "; ")))"
                + (fixedDelay
                    ? ". Every tick came an interval after the action before it returned: a fixed delay. A scheduler that repeats so by design declares \(Declaration.repeatPolicy(.fixedDelay))"
                    : "")
        )
        try ctx.requireExercised(
            judged * 2 >= points,
            "the suite's reference timers, or a plain action it handed the subject, were later than the leeway at \(points - judged) of \(points) grid points: the machine was too noisy to judge the timer"
        )
    }

    /// The declared fixed delay (``RepeatPolicy/fixedDelay``): the first tick within the
    /// allowance of the start, and each next one an interval after the action before it
    /// returned, never earlier and no later than the allowance plus the machine's noise
    /// meanwhile (`lateness` between two instants). A period stretched by less than the
    /// allowance shows in every gap: the median gap, less the noise, must be within the
    /// leeway.
    private func judgeFixedDelay(
        _ ctx: RuleContext, times: [UInt64], first: UInt64, allowance: UInt64,
        lateness: (UInt64, UInt64) -> UInt64
    ) throws(RuleFailure) {
        let slack = UInt64(Self.mappingSlack.nanoseconds)
        let step = UInt64(interval.nanoseconds)
        let actionLength = UInt64(self.actionLength.nanoseconds)
        guard times.count >= 3 else {
            // Too few ticks is the timer's fault only if the machine kept time meanwhile.
            let noise = lateness(first, times.last ?? first)
            try ctx.requireExercised(
                noise <= UInt64(leeway.nanoseconds),
                "the suite's timers were \(ms(noise)) late while the subject's ticked only \(times.count) time(s)")
            throw RuleFailure(
                "the timer ticked \(times.count) time(s) before the rule's last grid point, \(ms(times.last.map { $0 &- first } ?? 0)) after its start, while the suite's timers kept time: too few for the fixed delay the subject declares (\(Declaration.repeatPolicy(.fixedDelay)))"
            )
        }
        var report: [String] = []
        var excess: [Int64] = []
        if times[0] + slack < first || times[0] > first + allowance + lateness(first, times[0]) {
            report.append(
                "the first tick came \(times[0] < first ? "\(ms(first - times[0])) before" : "\(ms(times[0] - first)) after") its start"
            )
        }
        var judged = 0
        for (k, (previous, next)) in zip(times, times.dropFirst()).enumerated() {
            let due = previous + actionLength + step
            let noise = lateness(due &- step, next)
            if noise <= UInt64(leeway.nanoseconds) { judged += 1 }
            excess.append(Int64(bitPattern: next &- due) - Int64(noise))
            if next + slack < due {
                report.append(
                    "tick \(k + 1) came \(ms(due - next)) before an interval had passed since tick \(k)'s action returned"
                )
            } else if next > due + allowance + noise {
                report.append(
                    "tick \(k + 1) came \(ms(next - due)) after an interval had passed since tick \(k)'s action returned (the suite's timers were \(ms(noise)) late meanwhile)"
                )
            }
        }
        let median = excess.sorted()[excess.count / 2]
        if median > leeway.nanoseconds {
            report.append(
                "the median tick came \(ms(UInt64(median))) after an interval had passed since the action before it returned, beyond the leeway and the suite's timers' own lateness: every period is stretched"
            )
        }
        try ctx.expect(
            report.isEmpty,
            "a timer every \(ms(step)) with leeway \(ms(UInt64(leeway.nanoseconds))) is off the fixed delay the subject declares (\(Declaration.repeatPolicy(.fixedDelay))) over its \(times.count) ticks: \(report.prefix(4).joined(separator: "; "))"
        )
        try ctx.requireExercised(
            judged * 2 >= times.count - 1,
            "the suite's reference timers were later than the leeway during \(times.count - 1 - judged) of \(times.count - 1) periods: the machine was too noisy to judge the timer"
        )
    }

    /// The subject's `now`, and the suite's uptime at that moment (bracketed; retried until
    /// the bracket is narrow, so preemption between the readings does not skew the grid).
    private static func anchor(_ scheduler: any Scheduler) -> (SchedulerTime, UInt64) {
        var best: (SchedulerTime, UInt64, UInt64)?
        for _ in 0..<20 {
            let before = uptime()
            let now = scheduler.now
            let after = uptime()
            if best.map({ after - before < $0.2 }) ?? true { best = (now, after, after - before) }
            if after - before < 100_000 { break }
        }
        return (best!.0, best!.1)
    }
}

/// The suite's own repeating timer on the grid: a Dispatch timer with the given leeway on a
/// queue of its own, recording when each of its ticks ran and, with a `hop`, when the plain
/// action each tick handed to the subject ran.
private final class ReferenceTimer: Sendable {
    // nonisolated(unsafe): Dispatch sources are thread-safe, but not marked Sendable.
    nonisolated(unsafe) private let source: any DispatchSourceTimer
    private let recorded = Box<[UInt64]>([])
    private let hopped = Box<[UInt64]>([])
    /// Fires once a tick ran at or after the last grid point.
    let done = Signal()

    init(
        first: UInt64, interval: Duration, leeway: Duration, until last: UInt64,
        hop: (@Sendable (@escaping SchedulerAction) -> Void)?
    ) {
        // Not `.strict`: a strict timer sits in Dispatch's critical timer class, which kept
        // time in a loaded test process while the ordinary class, the subject's, was 265 ms
        // late; the ordinary class sees what the subject's timer sees.
        source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "repeating-grid reference"))
        source.schedule(
            deadline: DispatchTime(uptimeNanoseconds: first), repeating: .nanoseconds(Int(interval.nanoseconds)),
            leeway: .nanoseconds(Int(leeway.nanoseconds)))
        source.setEventHandler { [recorded, hopped, done] in
            let at = uptime()
            recorded.update { $0.append(at) }
            hop? { hopped.update { $0.append(uptime()) } }
            if at >= last, !done.hasFired { done.fire() }
        }
        source.resume()
    }

    var times: [UInt64] { recorded.value }
    var hops: [UInt64] { hopped.value.sorted() }

    func cancel() { source.cancel() }
}

/// The suite's uptime clock, the one Dispatch timers are armed on.
private func uptime() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Nanoseconds as milliseconds with one decimal, for messages.
private func ms(_ nanoseconds: UInt64) -> String {
    "\(Double(nanoseconds / 100_000) / 10) ms"
}

extension Duration {
    /// Whole nanoseconds (saturating), for the suite's own timer arithmetic.
    fileprivate var nanoseconds: Int64 { (try? checkedNanoseconds()) ?? .max }
}
