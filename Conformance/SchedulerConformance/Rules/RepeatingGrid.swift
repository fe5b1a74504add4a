import Dispatch
import SchedulerProbes
import Schedulers

/// TIM-6 and TIM-12: every point of a repeating timer's grid, `start + k × interval`, must
/// get a tick no later than `leeway` + ``pathAllowance`` + what the machine did to the suite's
/// own timers at that same point. The noise is measured by reference timers on the same grid,
/// and points rather than ticks are judged, so merged ticks do not read as drift (the
/// documentation's Reading a failure says how, witness by witness).
struct RepeatingGrid {
    /// Room for the subject's path from its timer firing to the action, beyond the
    /// reference's own path: a thread's wake-up on a loaded machine comes that much later.
    static let pathAllowance = Duration.milliseconds(8)
    /// A tick this much before its grid point still covers it: the mapping of the subject's
    /// clock onto the suite's is read in a bracket this narrow (early ticks are TIM-5's).
    static let mappingSlack = Duration.microseconds(500)

    let interval: Duration
    let leeway: Duration
    let points: Int
    /// How long each tick's action runs: a timer re-armed from the action's end drifts by it.
    let actionLength: Duration

    /// How long a rule goes on measuring while each measurement is too noisy to judge (an
    /// eighth under the sanitizer): a noisy one judges nothing either way, so another is no
    /// retry into a pass. A time bound, not a count, outlasts another process's spell.
    static let patience = Duration.seconds(10)

    /// Runs the timer and the reference over `points` grid points and judges each, measuring
    /// again (for up to ``patience``) while the machine was too noisy to judge, or while a
    /// failure's ticks were too few to say whether the timer keeps a fixed delay: a tick held
    /// back past the grid's end leaves one period. That failure stands whatever comes after
    /// it; only a later failure, which can say why, replaces it.
    func judge(_ ctx: RuleContext) throws(RuleFailure) {
        let deadline = ContinuousClock.now + Timing.evidenceBudget(Self.patience)
        var unexplained: RuleFailure?
        while true {
            let failure: RuleFailure?
            do throws(RuleFailure) {
                failure = try measure(ctx)
            } catch  where error.kind == .inconclusive && ContinuousClock.now < deadline {
                continue
            } catch  where error.kind == .failed {
                throw error
            } catch {
                throw unexplained ?? error
            }
            guard let failure else {
                if let unexplained { throw unexplained }
                return
            }
            let first = unexplained ?? failure
            if ContinuousClock.now >= deadline { throw first }
            unexplained = first
        }
    }

    /// One measurement: the timer and the references over the grid, judged. A failure whose
    /// ticks were too few to tell a fixed delay is returned, not thrown.
    private func measure(_ ctx: RuleContext) throws(RuleFailure) -> RuleFailure? {
        let scheduler = ctx.makeScheduler()
        let lead = Duration.milliseconds(5)
        let (subjectNow, anchor) = Self.anchor(scheduler)
        let start = try ctx.attempt("start") { () throws(SchedulerError) in try subjectNow.advanced(by: lead) }
        let step = UInt64(interval.nanoseconds)
        let first = anchor + UInt64(lead.nanoseconds)
        let last = first + step * UInt64(points - 1)
        let slack = UInt64(Self.mappingSlack.nanoseconds)

        let waits = CoreWaits()
        let reference = ReferenceTimer(
            first: first, interval: interval, leeway: .zero, until: last, waits: waits, snapshots: true
        ) { hop in _ = scheduler.schedule(hop) }
        let alike = ReferenceTimer(
            first: first, interval: interval, leeway: leeway, until: last, waits: waits, hop: nil)
        defer {
            reference.cancel()
            alike.cancel()
        }
        let ticks = Recorder<UInt64>()
        let ends = Lock<[Int: UInt64]>([:])
        // Only a declared fixed delay is judged period by period: the timers it arms are load
        // beside the grid's references, which would make a correct timer's grid too noisy.
        let fixedDelay = ctx.subject.declared.repeatPolicy == .fixedDelay
        let periods = PeriodReferences(interval: interval, leeway: leeway, scheduler: scheduler)
        defer { periods.cancel() }
        let done = Signal()
        let actionLength = UInt64(self.actionLength.nanoseconds)
        let (calling, callerWait) = (uptimeNanoseconds(), CoreWait.now())
        let handle = try ctx.attempt("repeating every \(interval), leeway \(leeway)") { () throws(SchedulerError) in
            try scheduler.schedule(at: start, repeatingEvery: interval, leeway: leeway) {
                let at = uptimeNanoseconds()
                let k = ticks.record(at)
                waits.started(tick: k)
                if at + slack >= last, !done.hasFired { done.fire() }
                while uptimeNanoseconds() < at + actionLength {}
                let end = uptimeNanoseconds()
                ends.withLock { $0[k] = end }
                waits.record(at: end, onSubject: true)
                if fixedDelay { _ = scheduler.schedule { periods.arm(after: k) } }
            }
        }
        // The suite's own call is the machine's to delay: a rule thread kept off its core past
        // the first grid point arms a correct timer late, and no reference sees that. The grid
        // is measured again; a subject slow in its own call, without such a wait, is judged.
        let (called, callerWaited) = (uptimeNanoseconds(), callerWait.flatMap { CoreWait.now()?.since($0) } ?? 0)
        let callHeldBack = calling > first || callerWaited > UInt64(Self.mappingSlack.nanoseconds)
        try ctx.waitFor(done, on: scheduler, "a tick at or after grid point \(points - 1)")
        handle.dispose()
        if called > first, callHeldBack {
            throw RuleFailure(
                """
                the suite's call to schedule the timer returned \(milliseconds(called - first)) after the first grid \
                point, its thread kept off a core: the machine was too noisy to judge the timer
                """,
                kind: .inconclusive)
        }
        try ctx.expect(
            reference.done.wait(ctx.timing.mustHappen), "the suite's reference timer did not reach the last grid point",
            kind: .error)
        try ctx.expect(
            alike.done.wait(ctx.timing.mustHappen),
            "the suite's reference timer with the subject's leeway did not reach the last grid point", kind: .error)
        // The plain actions handed so far have run before they are read: a queue that ran
        // nothing for a while runs the tick queued first, which can be the one the rule waits
        // for, and the hops queued behind it would otherwise be read as never run, no stall.
        reference.cancel()
        reference.waitForHops(within: ctx.timing.mustHappen)

        let times = ticks.all
        let referenceTimes = reference.times
        let alikeTimes = alike.times
        let hopTimes = reference.hops
        let tickEnds = times.map { $0 + actionLength }
        let actionEnds = ends.withLock { $0 }
        // A repeating timer's ticks never overlap, so a tick whose action's thread lost its
        // core ran past its length and held the next one back: the machine's doing, seen by
        // the action itself and by no reference (the suite's timers run on other threads).
        func heldBack(at point: UInt64) -> UInt64 {
            let latest = times.indices.filter { times[$0] <= point }.compactMap { actionEnds[$0] }.max() ?? 0
            return latest > point ? latest - point : 0
        }
        let allowance = UInt64((leeway + Self.pathAllowance).nanoseconds)
        // The hop's own delay counts from when the subject was free to run it: on a serial
        // scheduler it waits for a tick's action that was running when it was handed, which
        // is no stall, while a tick that started later and still ran first was queued ahead of
        // it while the queue ran nothing, a stall of both. The hop is the first to run after
        // this point's was handed, never one that ran before it was handed.
        func hopDelay(at point: UInt64) -> UInt64 {
            let handed = referenceTimes.first { $0 >= point } ?? point
            guard let hop = hopTimes.first(where: { $0 >= handed }) else { return 0 }
            return hop - Self.busyUntil(handed: handed, ran: hop, starts: times, ends: tickEnds)
        }
        // The noise between two instants: the latest the suite's timers, or a plain action
        // they handed the subject, were at a grid point in between.
        func lateness(from: UInt64, to: UInt64) -> UInt64 {
            (0..<points).map { first + step * UInt64($0) }.filter { $0 >= from && $0 <= to }.compactMap { point in
                guard let at = referenceTimes.first(where: { $0 >= point }),
                    let alikeAt = alikeTimes.first(where: { $0 >= point })
                else { return nil }
                return max(max(at, alikeAt) - point, hopDelay(at: point))
            }.max() ?? 0
        }
        if fixedDelay {
            // Each period's evidence: tick k's action's end, and when the suite's timers armed
            // once the subject was done with tick k let a tick k + 1 run.
            let tickActionEnds = times.indices.map { actionEnds[$0] ?? times[$0] }
            let evidence = try (0..<max(times.count - 1, 0)).map { k throws(RuleFailure) in
                guard let end = actionEnds[k],
                    let (fired, handedAt, hopRan) = periods.times(after: k, within: ctx.timing.mustHappen)
                else {
                    throw RuleFailure(
                        "the suite's timers armed after tick \(k) did not fire within \(ctx.timing.mustHappen)",
                        kind: .error)
                }
                // The plain action's wait counts from when the subject was free to run it: on
                // a serial scheduler it waits for tick k + 1's action, which is no stall, if
                // that action had started when it was handed (see `hopDelay`).
                let free = Self.busyUntil(handed: handedAt, ran: hopRan, starts: times, ends: tickActionEnds)
                let waited = hopRan > free ? hopRan - free : 0
                return Period(end: end, latest: max(fired, handedAt + waited), next: times[k + 1])
            }
            try judgeFixedDelay(
                ctx, times: times, periods: evidence, first: first, allowance: allowance, lateness: lateness)
            return nil
        }
        var (judged, judgedLater) = (0, 0)
        // The longest anything the suite saw was held back at a grid point: only a stall near an
        // interval long makes a correct timer run one tick for two points.
        var longestDelay: UInt64 = 0
        var report: [String] = []
        for k in 0..<points {
            let point = first + step * UInt64(k)
            guard let referenceAt = referenceTimes.first(where: { $0 >= point }),
                let alikeAt = alikeTimes.first(where: { $0 >= point })
            else { continue }
            let hopDelay = hopDelay(at: point)
            let machine = max(referenceAt, alikeAt) - point
            let tickWithin = { (bound: UInt64) in times.contains { $0 + slack >= point && $0 <= point + bound } }
            let coveredWithin = { (noise: UInt64) in tickWithin(allowance + noise) }
            // The subject's queue is called as a witness only for a tick that the machine's
            // noise alone does not excuse; a point excused by a delay longer than the leeway
            // was not judged.
            let witnessNeeded = !coveredWithin(machine)
            // The plain action was handed as the zero-leeway reference fired, as late as the
            // machine held that back: a queue that ran nothing until it ran the action held a
            // tick due at the point back for both.
            let queued = (referenceAt - point) + hopDelay
            var noise = witnessNeeded ? max(machine, queued, heldBack(at: point)) : machine
            // The last witness is the thread that ran the late tick: the time it waited for a
            // core since the latest reading of it, as it last ran the suite's code or as the
            // suite's timer read every thread at a grid point. A thread with no reading excuses
            // nothing, or a drifting timer on threads new to the measurement would go unjudged.
            let late = times.firstIndex { $0 + slack >= point }
            longestDelay = max(
                longestDelay, machine, queued, heldBack(at: point),
                late.flatMap { waits.waited(tick: $0, since: point)?.bound } ?? 0)
            var waited: CoreWaits.Waited?
            if witnessNeeded, !coveredWithin(noise), let late {
                waited = waits.waited(tick: late, since: referenceAt)
                noise = max(noise, machine + (waited?.bound ?? 0))
                // A thread held first by the subject's stall, then by the machine: both delays
                // add up.
                if let held = waits.heldUntil(tick: late, before: times[late]), held.at > point {
                    noise = max(noise, held.at - point + held.waited)
                }
            }
            // A tick within the leeway of its point needed no excuse, however late the suite's
            // timers were (they often wake later than a correct subject's ticks). A drifting
            // timer is within its leeway only at its first points, so the rest still need a
            // quiet machine to be judged, in the grid's later half too.
            if tickWithin(UInt64(leeway.nanoseconds)) || noise <= UInt64(leeway.nanoseconds) {
                judged += 1
                if k >= points / 2 { judgedLater += 1 }
            }
            if !witnessNeeded || coveredWithin(noise) { continue }
            let next = late.map { "came \(milliseconds(times[$0] &- point)) after it" } ?? "never came"
            let thread = waited.map {
                " (its thread had waited \(milliseconds($0.waited)) for a core"
                    + ($0.unread > 0 ? " since a reading \(milliseconds($0.unread)) after the reference fired)" : ")")
            }
            report.append(
                """
                point \(k): the tick \(next)\(thread ?? ""), the references \(milliseconds(machine)), a plain action \
                on the subject \(milliseconds(hopDelay))
                """
            )
        }
        let fixedDelayLook = looksFixedDelay(
            times: times, actionEnds: actionEnds, waits: waits, allowance: allowance, lateness: lateness)
        func gridFailure(hinting: Bool) -> String {
            """
            \(report.count) of \(points) grid points of a timer every \(milliseconds(step)) with leeway \
            \(milliseconds(UInt64(leeway.nanoseconds))) got no tick within leeway + \
            \(milliseconds(UInt64(Self.pathAllowance.nanoseconds))) + the latest of the suite's own timers (zero \
            leeway and the same leeway) and a plain action it handed the subject there \
            (\(report.prefix(4).joined(separator: "; ")))
            """
                + (hinting ? Self.fixedDelayHint : "")
        }
        if !report.isEmpty, fixedDelayLook == nil { return RuleFailure(gridFailure(hinting: false)) }
        try ctx.expect(report.isEmpty, gridFailure(hinting: fixedDelayLook == true))
        // One tick per grid point, unless a stall held a tick past the next point (GCD runs the
        // two as one): a tick short with no such stall is drift that noise hid point by point
        // (late ticks of a drifting timer landing on the next points), and one short beside a
        // long stall cannot be told from a merge.
        let merged = points - 1 - (times.firstIndex { $0 + slack >= last } ?? points - 1)
        if merged > 0 {
            let drift = """
                the timer ran \(points - merged) ticks for \(points) grid points, and nothing the suite saw was held \
                back long enough to merge two (the longest \(milliseconds(longestDelay)), an interval is \
                \(milliseconds(step))): its ticks drifted behind the grid, each one landing on a later point
                """ + (fixedDelayLook == true ? Self.fixedDelayHint : "")
            if longestDelay + allowance < step, fixedDelayLook == nil { return RuleFailure(drift) }
            try ctx.expect(longestDelay + allowance >= step, drift)
            try ctx.requireExercised(
                false,
                """
                the timer ran \(points - merged) ticks for \(points) grid points beside a stall of \
                \(milliseconds(longestDelay)), which a correct timer merges: the machine was too noisy to judge \
                the timer
                """)
        }
        // Two thirds of the later half: a timer that drifts from the middle on stays within
        // the allowance at its first drifting points, and again wherever its drift reaches a
        // whole interval (a tick then covers the next point); judging only half of the later
        // points let it pass whenever the machine was noisy at the others.
        let later = points - points / 2
        try ctx.requireExercised(
            judged * 2 >= points && judgedLater * 3 >= later * 2,
            """
            the suite's reference timers, or a plain action it handed the subject, were later than the leeway at \
            \(points - judged) of \(points) grid points (\(later - judgedLater) of the later \(later)) whose tick was \
            later than that too: the machine was too noisy to judge the timer
            """
        )
        return nil
    }
}
