import SchedulerProbes
import Schedulers

/// TIM-5: tick k of a repeating timer never runs before `start + k × interval`.
///
/// A tick can only show that it came early if nothing held it back: a timer that runs ahead
/// of its grid, on a machine that stalls it, fires late with respect to its own plan and may
/// land after the grid point it was meant to beat. So a tick counts as evidence only when it
/// came within ``band`` after its due time (its grid point, or for a declared fixed delay an
/// interval after the tick before): an early timer lands there only when a stall happened to
/// cancel its lead exactly, once, while its lead grows by the same amount every tick after.
/// The timer runs until ``wanted`` such ticks were seen, the first among them (a timer that
/// fires as soon as it is scheduled is early only there), and an early tick fails it at once.
/// The first tick counts only if the scheduler could have run it early: the timer was armed
/// before its start and, on a serial scheduler, a plain action scheduled just after arming it
/// had run by then (a tick the timer queued at once would have run before that action). A
/// rule thread stalled past the start, or a queue stalled until then, proves nothing.
/// A run of ``limit`` ticks with fewer on time is measured again, up to ``attempts`` times,
/// then inconclusive, never passed.
struct RepeatingEarliness {
    let interval = Duration.milliseconds(20)
    /// A tick this close after its due time ran unhindered: wide enough for a correct timer on
    /// a loaded machine to land in it most of the time, a quarter of the lead that a timer
    /// running a fifth fast gains in one tick.
    let band = Duration.milliseconds(5)
    let wanted = 10
    let limit = 60
    let attempts = 3

    private struct Progress {
        var ticks = 0
        var onTime = 0
        var firstOnTime = false
        var previous: SchedulerTime?
        var early: String?
        var error: String?
    }

    func judge(_ ctx: RuleContext) throws(RuleFailure) {
        var last = Progress()
        for _ in 0..<attempts {
            last = try measure(ctx)
            if let error = last.error { throw RuleFailure(error, kind: .error) }
            if let early = last.early { throw RuleFailure(early) }
            if last.firstOnTime, last.onTime >= wanted { return }
        }
        try ctx.requireExercised(
            false,
            """
            in \(attempts) runs of up to \(limit) ticks, the last had \(last.onTime) of \(last.ticks) ticks within \
            \(band) after their due time\(last.firstOnTime ? "" : ", not the first"): a tick held back that long \
            could not show it was early
            """
        )
    }

    /// One run of the timer, until enough ticks were on time, one was early, or ``limit``.
    private func measure(_ ctx: RuleContext) throws(RuleFailure) -> Progress {
        let scheduler = ctx.makeScheduler()
        let start = try ctx.deadline(.milliseconds(10), on: scheduler)
        let fixedDelay = ctx.subject.declared.repeatPolicy == .fixedDelay
        let progress = Lock(Progress())
        let finished = Signal()
        // When the scheduler first ran something after the timer was armed, and when arming
        // returned: the first tick's evidence needs both before the start.
        let serial = ctx.subject.capabilities.contains(.serial)
        let probed = Lock<SchedulerTime?>(nil)
        let armed = Lock<SchedulerTime?>(nil)
        let (interval, band, wanted, limit) = (self.interval, self.band, self.wanted, self.limit)
        let handle = try ctx.attempt("repeating every \(interval)") { () throws(SchedulerError) in
            try scheduler.schedule(at: start, repeatingEvery: interval, leeway: .zero) {
                let now = scheduler.now
                let enough = progress.withLock { state -> Bool in
                    let k = state.ticks
                    state.ticks += 1
                    defer { state.previous = now }
                    guard state.early == nil, state.error == nil else { return true }
                    guard let due = try? start.advanced(by: interval * k) else {
                        state.error = "start + \(k) × \(interval) is past the end of the subject's time"
                        return true
                    }
                    if now < due {
                        state.early = "tick \(k) ran \(now.duration(to: due)) before start + \(k) × \(interval)"
                        return true
                    }
                    let planned = fixedDelay ? max(due, (try? state.previous?.advanced(by: interval)) ?? due) : due
                    if now >= planned, planned.duration(to: now) <= band {
                        state.onTime += 1
                        if k == 0 {
                            let armedBefore = armed.withLock { $0 }.map { $0 < start } ?? false
                            let ranBefore = !serial || (probed.withLock { $0 }.map { $0 < start } ?? false)
                            state.firstOnTime = armedBefore && ranBefore
                        }
                    }
                    // A late first tick ends the run: it is measured again from the start.
                    return !state.firstOnTime || state.onTime >= wanted || state.ticks >= limit
                }
                if enough, !finished.hasFired { finished.fire() }
            }
        }
        armed.withLock { $0 = scheduler.now }
        if serial { scheduler.schedule { probed.withLock { $0 = scheduler.now } } }
        try ctx.waitFor(finished, on: scheduler, "\(wanted) ticks on time, or \(limit) ticks")
        handle.dispose()
        return progress.withLock { $0 }
    }
}
