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
/// has no thread free runs nothing, timers or not), so it is excused, and so is a tick held
/// back by the tick before it, whose action ran past its length because its thread lost its
/// core (the action reads the clock as it ends), and a tick whose own thread waited for a
/// core (the kernel counts that wait per thread: CI saw a queue scheduler's first tick 12 ms
/// behind the suite's timers, with no other witness); a tick that is late while all were on
/// time and its thread did not wait (or was not seen to: the suite had not seen it run) is
/// the timer's own doing. The leeway asked
/// for is large against that noise, so a period stretched by a leeway (or an action's length)
/// leaves some grid point uncovered within two or three ticks, far outside it.
///
/// Judging points rather than ticks is what keeps merged ticks (a stall longer than the
/// interval, which Dispatch coalesces into one run) from reading as drift: the merged tick
/// covers the later point, and the earlier one is excused by the reference's evidence of
/// the stall, or failed when there was none. A point whose reference came later than a whole
/// leeway, and whose tick came later than that too, was too noisy to judge; a measurement
/// where fewer than half the points, or of the later half's, could be judged is
/// inconclusive, and the rule measures again, up to three times.
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

    /// Measurements a rule makes while each is too noisy to judge: with every core busy,
    /// TIM-12's mutant that stretches each period by two leeways hid behind the suite's
    /// as-late timers in 7 runs of 30 of one measurement, and in none of 30 of three. A
    /// noisy measurement judges nothing either way, so another one is no retry into a pass: a
    /// conclusive one decides, and a failure fails at once.
    static let measurements = 3

    /// Runs the timer and the reference over `points` grid points and judges each, measuring
    /// again (up to ``measurements`` times) while the machine was too noisy to judge.
    func judge(_ ctx: RuleContext) throws(RuleFailure) {
        var made = 1
        while true {
            do {
                return try measure(ctx)
            } catch  where error.kind == .inconclusive && made < Self.measurements {
                made += 1
            }
        }
    }

    /// One measurement: the timer and the references over the grid, judged.
    private func measure(_ ctx: RuleContext) throws(RuleFailure) {
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
        // beside the grid's references, which made a correct concurrent scheduler's TIM-12
        // inconclusive in 11 of 60 runs against none without them.
        let fixedDelay = ctx.subject.declared.repeatPolicy == .fixedDelay
        let periods = PeriodReferences(interval: interval, leeway: leeway, scheduler: scheduler)
        defer { periods.cancel() }
        let done = Signal()
        let actionLength = UInt64(self.actionLength.nanoseconds)
        let (calling, callerWait) = (uptime(), CoreWait.now())
        let handle = try ctx.attempt("repeating every \(interval), leeway \(leeway)") { () throws(SchedulerError) in
            try scheduler.schedule(at: start, repeatingEvery: interval, leeway: leeway) {
                let at = uptime()
                let k = ticks.record(at)
                waits.started(tick: k)
                if at + slack >= last, !done.hasFired { done.fire() }
                while uptime() < at + actionLength {}
                let end = uptime()
                ends.withLock { $0[k] = end }
                waits.record(at: end, onSubject: true)
                if fixedDelay { _ = scheduler.schedule { periods.arm(after: k) } }
            }
        }
        // The suite's own call is the machine's to delay: a rule thread kept off its core
        // past the first grid point (before the call, or waiting for a core inside it) armed
        // a correct timer late, and no reference sees that (beside three busy loops, a first
        // tick 36.4 ms late on a thread the call had not yet made). The grid is measured
        // again; a subject slow in its own call, without such a wait, is judged.
        let (called, callerWaited) = (uptime(), callerWait.flatMap { CoreWait.now()?.since($0) } ?? 0)
        let callHeldBack = calling > first || callerWaited > UInt64(Self.mappingSlack.nanoseconds)
        try ctx.waitFor(done, on: scheduler, "a tick at or after grid point \(points - 1)")
        handle.dispose()
        if called > first, callHeldBack {
            throw RuleFailure(
                "the suite's call to schedule the timer returned \(ms(called - first)) after the first grid point, its thread kept off a core: the machine was too noisy to judge the timer",
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
        // core ran past its length and held the next one back: that is the machine's doing,
        // seen by the action itself, and no reference sees it (the suite's timers run on
        // other threads). CI saw a correct concurrent scheduler's tick 13.8 ms late with the
        // references and a plain action on time.
        func heldBack(at point: UInt64) -> UInt64 {
            let latest = times.indices.filter { times[$0] <= point }.compactMap { actionEnds[$0] }.max() ?? 0
            return latest > point ? latest - point : 0
        }
        let allowance = UInt64((leeway + Self.pathAllowance).nanoseconds)
        // The hop's own delay counts from when the subject was free to run it: on a serial
        // scheduler it waits for a tick's action that was running when it was handed, which
        // is no stall. A tick that started after that and still ran before the hop was queued
        // ahead of it while the queue ran nothing: a stall of both (CI saw a queue
        // scheduler's ticks and hops wait half a second for a thread of Dispatch's global
        // queues, which test bodies held, and the tick's action then excused the hops).
        // The hop is the first to run after this point's was handed: on a serial subject its
        // own, or one handed before it (which ran no later), never one that ran before it was
        // handed (CI crashed on that subtraction).
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
            return try judgeFixedDelay(
                ctx, times: times, periods: evidence, first: first, allowance: allowance, lateness: lateness)
        }
        var (judged, judgedLater) = (0, 0)
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
            // tick due at the point back for both (CI saw a stalled target's tick 305.4 ms
            // late, its plain action handed 28.4 ms late and run 277.5 ms after that).
            let queued = (referenceAt - point) + hopDelay
            var noise = witnessNeeded ? max(machine, queued, heldBack(at: point)) : machine
            // The last witness is the thread that ran the late tick: the time it waited for a
            // core since the latest reading of it, as it last ran the suite's code or as the
            // suite's timer read every thread at a grid point (the suite's timers fired on
            // time, so the subject's was due to wake it then). A thread with no reading
            // excuses nothing: leaving its point unjudged let a timer drifting by 8 ms a tick
            // pass 3 runs in 10 in a loaded test process, whose pool threads were mostly new
            // to the measurement; CI then failed the main scheduler, whose ticks ran on such
            // threads, for a tick 17 ms late, which the readings at each point now judge.
            let late = times.firstIndex { $0 + slack >= point }
            var waited: CoreWaits.Waited?
            if witnessNeeded, !coveredWithin(noise), let late {
                waited = waits.waited(tick: late, since: referenceAt)
                noise = max(noise, machine + (waited?.bound ?? 0))
                // A thread held first by the subject's stall, then by the machine: CI saw a
                // subscription scheduler's tick 48.0 ms late, after its thread ran the plain
                // action (28.4 ms late) and waited 16.3 ms for a core.
                if let held = waits.heldUntil(tick: late, before: times[late]), held.at > point {
                    noise = max(noise, held.at - point + held.waited)
                }
            }
            // A tick within the leeway of its point needed no excuse, however late the suite's
            // timers were: on 2 cores a correct concurrent scheduler's ticks kept time while
            // both references woke 2-6 ms late at most points, and the measurement judged
            // too few of them. A drifting timer is within its leeway only at its first points, so the
            // rest still need a quiet machine to be judged, in the grid's later half too.
            if tickWithin(UInt64(leeway.nanoseconds)) || noise <= UInt64(leeway.nanoseconds) {
                judged += 1
                if k >= points / 2 { judgedLater += 1 }
            }
            if !witnessNeeded || coveredWithin(noise) { continue }
            let next = late.map { "came \(ms(times[$0] &- point)) after it" } ?? "never came"
            let thread = waited.map {
                " (its thread had waited \(ms($0.waited)) for a core"
                    + ($0.unread > 0 ? " since a reading \(ms($0.unread)) after the reference fired)" : ")")
            }
            report.append(
                "point \(k): the tick \(next)\(thread ?? ""), the references \(ms(machine)), a plain action on the subject \(ms(hopDelay))"
            )
        }
        // No tick sooner than an interval after the action before it ended, and most within
        // the allowance of it (or of what held back the suite's timers or the tick's thread):
        // the other choice, undeclared. Most, not all: one period that a
        // stall of the subject's own thread stretched past what the references saw hid the
        // hint under load, though the other seven periods were a fixed delay's.
        let gaps = Array(zip(tickEnds, times.dropFirst()))
        let onDelay = gaps.enumerated().filter { k, gap in
            let waited = waits.waited(tick: k + 1, since: actionEnds[k] ?? gap.0)?.bound ?? 0
            return gap.1 <= gap.0 + step + allowance + max(lateness(from: gap.0, to: gap.1), waited)
        }.count
        let looksFixedDelay =
            actionLength > 0 && gaps.count >= 3 && gaps.allSatisfy { end, next in next + slack >= end + step }
            && onDelay * 2 > gaps.count
        try ctx.expect(
            report.isEmpty,
            "\(report.count) of \(points) grid points of a timer every \(ms(step)) with leeway \(ms(UInt64(leeway.nanoseconds))) got no tick within leeway + \(ms(UInt64(Self.pathAllowance.nanoseconds))) + the latest of the suite's own timers (zero leeway and the same leeway) and a plain action it handed the subject there (\(report.prefix(4).joined(separator: "; ")))"
                + (looksFixedDelay
                    ? ". Every tick came an interval after the action before it returned: a fixed delay. A scheduler that repeats so by design declares \(Declaration.repeatPolicy(.fixedDelay))"
                    : "")
        )
        // Two thirds of the later half: a timer that drifts from the middle on stays within
        // the allowance at its first drifting points, and again wherever its drift reaches a
        // whole interval (a tick then covers the next point); judging only half of the later
        // points let it pass whenever the machine was noisy at the others.
        let later = points - points / 2
        try ctx.requireExercised(
            judged * 2 >= points && judgedLater * 3 >= later * 2,
            "the suite's reference timers, or a plain action it handed the subject, were later than the leeway at \(points - judged) of \(points) grid points (\(later - judgedLater) of the later \(later)) whose tick was later than that too: the machine was too noisy to judge the timer"
        )
    }

    /// When a plain action handed to a serial subject at `handed`, which ran at `ran`, could
    /// first have run: after the ticks' actions (`starts`, `ends`) that had started by the
    /// time it was handed and ended before it ran; at `handed` if there were none.
    /// Never later than `ran` when `handed` is not.
    static func busyUntil(handed: UInt64, ran: UInt64, starts: [UInt64], ends: [UInt64]) -> UInt64 {
        var free = handed
        for (start, end) in zip(starts, ends) where start <= handed && end <= ran { free = max(free, end) }
        return free
    }

    /// The declared fixed delay (``RepeatPolicy/fixedDelay``): the first tick within the
    /// allowance of the start (`lateness` between two instants is the grid references'
    /// noise), and each next one an interval after the action before it returned, never
    /// earlier and no later than the allowance past the latest of the suite's timers armed
    /// for that period (``PeriodReferences``). A period stretched by less than the allowance
    /// shows in every one: the median tick past those timers must be within the leeway.
    private func judgeFixedDelay(
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
        for (k, period) in periods.enumerated() {
            let due = period.due(step)
            let noise = period.latest &- due
            // A tick within the leeway of its due time needed no excuse, however noisy the
            // suite's timers were: only a later one leans on them.
            if noise <= UInt64(leeway.nanoseconds) || period.next <= due + UInt64(leeway.nanoseconds) { judged += 1 }
            excess.append(Int64(bitPattern: period.next &- period.latest))
            if period.next + slack < due {
                report.append(
                    "tick \(k + 1) came \(ms(due - period.next)) before an interval had passed since tick \(k)'s action returned"
                )
            } else if period.next > period.latest + allowance {
                report.append(
                    "tick \(k + 1) came \(ms(period.next - due)) after an interval had passed since tick \(k)'s action returned (the suite's timers armed once the subject was done with tick \(k) fired, or a plain action they handed it ran, \(ms(noise)) after that)"
                )
            }
        }
        let median = excess.sorted()[excess.count / 2]
        if median > leeway.nanoseconds {
            report.append(
                "the median tick came \(ms(UInt64(median))) after the suite's timers armed for its period, beyond the leeway: every period is stretched"
            )
        }
        try ctx.expect(
            report.isEmpty,
            "a timer every \(ms(step)) with leeway \(ms(UInt64(leeway.nanoseconds))) is off the fixed delay the subject declares (\(Declaration.repeatPolicy(.fixedDelay))) over its \(times.count) ticks: \(report.prefix(4).joined(separator: "; "))"
        )
        try ctx.requireExercised(
            judged * 2 >= periods.count,
            "\(periods.count - judged) of \(periods.count) ticks came later than the leeway after their due time while the suite's timers armed for the period, or a plain action they handed the subject, were as late: the machine was too noisy to judge the timer"
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

/// One period of a repeating timer, as a fixed delay judges it: when tick k's action ended,
/// the latest of the suite's timers armed for the period, and when tick k + 1 came.
private struct Period {
    let end: UInt64
    let latest: UInt64
    let next: UInt64

    /// The earliest a fixed-delay tick k + 1 may come: an interval after the action returned.
    func due(_ step: UInt64) -> UInt64 { end + step }
}

/// The suite's evidence of what the machine let a fixed-delay timer do in each period, taken
/// at the same moment as the subject's timer rather than at grid points apart from it.
///
/// From the end of tick k's action the suite hands the subject a plain action. On a serial
/// subject that runs once the subject is done with tick k, its re-arm included, so a thread
/// preempted between the action's return and the re-arm delays it too. There the suite arms
/// two one-shot Dispatch timers an interval ahead (zero leeway, and the subject's leeway) on
/// queues of their own, the first handing the subject another plain action: the latest of the
/// three (the plain action's wait for the subject's own tick left out) is when a correct
/// fixed-delay tick k + 1 could have run. Seen in a CI run: with every core busy, a correct
/// fixed-delay tick came 17 ms late while the grid's references, read at grid points apart
/// from it, had been 4 ms late.
private final class PeriodReferences: Sendable {
    private let interval: Duration
    private let leeway: Duration
    private let scheduler: any Scheduler
    private let armed = Lock<[Int: (zero: ReferenceTimer, alike: ReferenceTimer)]>([:])
    private let zeroQueue = DispatchQueue(label: "repeating-grid period reference")
    private let alikeQueue = DispatchQueue(label: "repeating-grid period reference with leeway")

    init(interval: Duration, leeway: Duration, scheduler: any Scheduler) {
        self.interval = interval
        self.leeway = leeway
        self.scheduler = scheduler
    }

    /// Arms period k's timers, an interval from now.
    func arm(after k: Int) {
        let deadline = uptime() + UInt64(interval.nanoseconds)
        let scheduler = self.scheduler
        let zero = ReferenceTimer(first: deadline, interval: nil, leeway: .zero, until: deadline, on: zeroQueue) {
            hop in
            _ = scheduler.schedule(hop)
        }
        let alike = ReferenceTimer(
            first: deadline, interval: nil, leeway: leeway, until: deadline, on: alikeQueue, hop: nil)
        armed.withLock { $0[k] = (zero, alike) }
    }

    /// When period k's timers fired (the later of the two), when the first handed the subject
    /// its plain action and when that ran, once all three did; nil when they were not armed or
    /// did not run within `bound`.
    func times(after k: Int, within bound: Duration) -> (fired: UInt64, handedAt: UInt64, hopRan: UInt64)? {
        let deadline = ContinuousClock.now + bound
        func left() -> Duration { max(.zero, deadline - .now) }
        guard let (zero, alike) = armed.withLock({ $0[k] }), zero.done.wait(left()), alike.done.wait(left()),
            spinWait(upTo: left(), until: { !zero.hops.isEmpty }),
            let handedAt = zero.times.first, let alikeAt = alike.times.first, let hopRan = zero.hops.first
        else { return nil }
        return (max(handedAt, alikeAt), handedAt, hopRan)
    }

    func cancel() {
        for (zero, alike) in armed.withLock({ $0.values }) {
            zero.cancel()
            alike.cancel()
        }
    }
}

/// The suite's own timer: a Dispatch timer with the given leeway on a queue of its own,
/// repeating on the grid (or once, with no `interval`), recording when each of its ticks ran
/// and, with a `hop`, when the plain action each tick handed to the subject ran.
private final class ReferenceTimer: Sendable {
    // nonisolated(unsafe): Dispatch sources are thread-safe, but not marked Sendable.
    nonisolated(unsafe) private let source: any DispatchSourceTimer
    private let recorded = Box<[UInt64]>([])
    private let hopped = Box<[UInt64]>([])
    /// Signalled once for each plain action handed to the subject that has run.
    private let hopRan = DispatchSemaphore(value: 0)
    /// Fires once a tick ran at or after the last grid point.
    let done = Signal()

    init(
        first: UInt64, interval: Duration?, leeway: Duration, until last: UInt64,
        on queue: DispatchQueue = DispatchQueue(label: "repeating-grid reference"), waits: CoreWaits? = nil,
        snapshots: Bool = false, hop: (@Sendable (@escaping SchedulerAction) -> Void)?
    ) {
        // Not `.strict`: a strict timer sits in Dispatch's critical timer class, which kept
        // time in a loaded test process while the ordinary class, the subject's, was 265 ms
        // late; the ordinary class sees what the subject's timer sees.
        source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(
            deadline: DispatchTime(uptimeNanoseconds: first),
            repeating: interval.map { .nanoseconds(Int($0.nanoseconds)) } ?? .never,
            leeway: .nanoseconds(Int(leeway.nanoseconds)))
        source.setEventHandler { [recorded, hopped, hopRan, done, waits] in
            let at = uptime()
            recorded.update { $0.append(at) }
            hop? {
                let ran = uptime()
                hopped.update { $0.append(ran) }
                waits?.record(at: ran, onSubject: true)
                hopRan.signal()
            }
            waits?.record(at: uptime())
            if snapshots { waits?.snapshot(fired: at) }
            if at >= last, !done.hasFired { done.fire() }
        }
        source.resume()
    }

    var times: [UInt64] { recorded.value }
    var hops: [UInt64] { hopped.value.sorted() }

    func cancel() { source.cancel() }

    /// Waits until every plain action handed to the subject so far has run, or `bound` passed.
    func waitForHops(within bound: Duration) {
        let deadline = DispatchTime.now() + .nanoseconds(Int(bound.nanoseconds))
        for _ in recorded.value {
            if hopRan.wait(timeout: deadline) == .timedOut { return }
        }
    }
}

/// The time each thread that ran the suite's code during a measurement had waited for a core
/// (``CoreWait``), read at each tick's start and as its code ended, and every thread's, read
/// as the suite's timer fires at each grid point: what says whether a late tick's thread was
/// kept off a core.
final class CoreWaits: Sendable {
    private let readings = Lock<[(at: UInt64, wait: CoreWait, onSubject: Bool)]>([])
    private let starts = Lock<[Int: CoreWait]>([:])
    private let snapshots = Lock<[(at: UInt64, read: UInt64, waits: [Int: Int64])]>([])

    /// Reads the calling thread as tick `tick` starts.
    func started(tick: Int) {
        guard let wait = CoreWait.now() else { return }
        starts.withLock { $0[tick] = wait }
    }

    /// Reads the calling thread as the suite's code on it ends, at `at`: `onSubject` when that
    /// code ran on the subject (a tick's action, or a plain action handed to it), so that the
    /// subject could run nothing else on this thread until then.
    func record(at: UInt64, onSubject: Bool = false) {
        guard let wait = CoreWait.now() else { return }
        readings.withLock { $0.append((at, wait, onSubject)) }
    }

    /// Reads every thread of the process from the calling one, as the suite's timer fires at a
    /// grid point (at `fired`): a tick that comes late on a thread that had not run the suite's
    /// code before (a pool thread) still has a reading from when it was due. When the reading
    /// ended is kept too: a thread read late in it may have waited before it was read.
    func snapshot(fired: UInt64) {
        let waits = CoreWait.everyThread()
        let read = uptime()
        guard !waits.isEmpty else { return }
        snapshots.withLock {
            $0.append((fired, read, Dictionary(waits.map { ($0.thread, $0.nanoseconds) }, uniquingKeysWith: max)))
        }
    }

    /// A late tick's thread as its readings show it: how long it waited for a core from its
    /// baseline to the tick's start, and how long after the due time that baseline may have
    /// been read (a snapshot of every thread takes a while, longer when its own thread loses
    /// its core, and a wait before the thread's turn in it counts in the baseline).
    struct Waited {
        let waited: UInt64
        let unread: UInt64
        /// The most the machine can have held the thread back since the due time.
        var bound: UInt64 { waited + unread }
    }

    /// The latest time before `before` at which the thread of tick `tick` ran the suite's code
    /// on the subject, and how long it waited for a core from then to the tick's start: a
    /// tick that the subject's stall (seen by a plain action on this thread) or the tick
    /// before it held back, and that then waited for a core, is late by both. Nil when the
    /// thread ran none.
    func heldUntil(tick: Int, before: UInt64) -> (at: UInt64, waited: UInt64)? {
        guard let start = starts.withLock({ $0[tick] }),
            let held = readings.withLock({
                $0.last { $0.onSubject && $0.at < before && $0.wait.thread == start.thread }
            })
        else { return nil }
        return (held.at, UInt64(max(start.nanoseconds - held.wait.nanoseconds, 0)))
    }

    /// How long the thread of tick `tick` waited for a core, from its latest reading at or
    /// before `due` (the suite's code ending on it, or a snapshot of every thread taken as the
    /// suite's timer fired) to the tick's start; nil when there was none (or the platform
    /// does not count). Counted from when the tick was due, not from a reading taken while it
    /// was already held back: a snapshot in the middle of a stall would hide its first part,
    /// and so the time a snapshot took to read is kept as `unread`.
    func waited(tick: Int, since due: UInt64) -> Waited? {
        guard let start = starts.withLock({ $0[tick] }) else { return nil }
        let own = readings.withLock { $0.last { $0.at <= due && $0.wait.thread == start.thread } }
        let seen = snapshots.withLock { $0.last { $0.at <= due && $0.waits[start.thread] != nil } }
        let baseline: (wait: Int64, read: UInt64)? =
            if let own, own.at >= seen?.at ?? 0 {
                (own.wait.nanoseconds, own.at)
            } else {
                seen.flatMap { seen in seen.waits[start.thread].map { ($0, seen.read) } }
            }
        return baseline.map {
            Waited(waited: UInt64(max(start.nanoseconds - $0.wait, 0)), unread: max($0.read, due) - due)
        }
    }
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
