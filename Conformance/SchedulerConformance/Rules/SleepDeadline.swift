import Dispatch
import Foundation
import SchedulerProbes
import Schedulers

/// CLK-2: `sleep(until:)` never returns before its deadline on that clock.
func sleepNeverReturnsBeforeItsDeadline(_ ctx: RuleContext) throws(RuleFailure) {
    let session = ClockSession(ctx)
    guard session.clock.capabilities.contains(.virtualTime) else {
        // Deadlines just short of whole milliseconds (a sleep that rounds down wakes 950 µs
        // early) and just under half past (one rounded to the nearest wakes 450 µs early);
        // half of them with a tolerance, which lets a sleep end later, never earlier.
        // The task may then wait longer than that for a core before it
        // reads the clock, so the clock is also read on the thread that hands the
        // task back, as it does (the last hand-back before the sleep returned is its
        // wake; a correct clock makes none before its deadline). That thread may be
        // as late on a loaded machine, so twenty sleeps are judged, not one.
        let timeMovesByItself = !session.clock.capabilities.contains(.synchronous)
        for index in 0..<20 {
            let span = Duration.milliseconds(1 + index % 4) + .microseconds(index % 2 == 0 ? 950 : 450)
            let tolerance: Duration? = index % 4 < 2 ? nil : .milliseconds(1)
            let call = "sleep(until: now + \(span), tolerance: \(tolerance.map { "\($0)" } ?? "nil"))"
            let deadline = Lock<Duration?>(nil)
            let handedBack = Lock<Duration?>(nil)
            let clock = session.clock
            let resumed: @Sendable () -> Void = { handedBack.withLock { $0 = clock.now() } }
            let sleeper = session.start(resumed: resumed) { clock in
                let due = clock.now() + span
                deadline.withLock { $0 = due }
                try await clock.sleepUntil(due, tolerance)
            }
            let outcome = try session.outcome(of: sleeper, call)
            guard case .returned(let woke) = outcome, let due = deadline.withLock({ $0 }) else {
                throw RuleFailure("\(call) ended with \(outcome)")
            }
            // Only where time moves by itself: a clock whose sleeps move its time
            // (an immediate clock) may hand the task back before it does so.
            let handed = timeMovesByItself ? handedBack.withLock { $0 } : nil
            let seen = min(woke, handed ?? woke)
            try ctx.expect(
                seen >= due,
                """
                \(call) woke \(due - seen) before its deadline (the clock's time as \
                the task was handed back \(handed.map { "\($0)" } ?? "unseen"), as its body read it after \
                the sleep \(woke), the deadline \(due))
                """
            )
        }
        return
    }
    // One tick past the clock's origin: a clock that treats every deadline up to its
    // first tick as the origin wakes it before time moves.
    let tick = max(session.clock.minimumResolution(), .nanoseconds(1))
    let first = try session.parkedSleeper(until: session.now + tick, "a sleeper one tick ahead")
    try session.advance(by: .zero)
    try ctx.expect(
        first.outcome == nil, "a sleeper one tick ahead resumed at \(session.now), before time moved")
    try session.advance(by: tick)
    _ = try session.outcome(of: first, "a sleeper one tick ahead, once the clock moved by a tick,")
    let deadline = session.now + .seconds(10)
    let sleeper = try session.parkedSleeper(until: deadline, "a sleeper 10 s ahead")
    let outcome = try session.wakeExactly(sleeper, at: deadline, "a sleeper 10 s ahead")
    guard case .returned(let woke) = outcome else { throw RuleFailure("the sleeper ended with \(outcome)") }
    try ctx.expect(woke >= deadline, "the sleeper saw \(woke), before its deadline \(deadline)")
    // A deadline an attosecond past a whole second: a clock that rounds it down (or
    // ignores a fraction that small) wakes early; it is due at the next tick.
    let between = session.now + .seconds(1) + Duration(secondsComponent: 0, attosecondsComponent: 1)
    let fractional = try session.parkedSleeper(
        until: between, "a sleeper an attosecond past a whole second")
    try session.advance(by: .seconds(1))
    try ctx.expect(
        fractional.outcome == nil,
        "a sleeper until \(between) resumed at \(session.now), before its deadline")
    try session.advance(by: tick)
    _ = try session.outcome(
        of: fractional, "a sleeper an attosecond past a whole second, once the clock reached the next tick,"
    )
    // The last nanosecond a signed 64-bit count holds, from the origin of a fresh
    // clock: a clock that keeps deadlines as such a count (with anything past it as
    // "never") must keep this one, due when its time gets there.
    let fresh = ClockSession(ctx)
    let last = Duration.nanoseconds(Int64.max)
    let far = try fresh.parkedSleeper(until: last, "a sleeper until 2⁶³−1 ns past the clock's origin")
    _ = try fresh.wakeExactly(far, at: last, "a sleeper until 2⁶³−1 ns past the clock's origin")
}
