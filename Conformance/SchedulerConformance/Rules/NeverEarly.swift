import Foundation
import SchedulerProbes
import Schedulers

/// TIM-1: twenty delayed actions, from the rule's thread and then from inside an action that
/// has already run for 5 ms, none of which may run before its deadline, on the subject's
/// clock or the suite's. From inside an action `now` must still be the present: a scheduler
/// that reads its clock once per action (or per drain) hands later work a stale start, and
/// every deadline built on it comes early.
func delayedActionsNeverRunEarly(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let realTime = !ctx.subject.capabilities.contains(.virtualTime)
    let early = Recorder<String>()
    let outside = EarlinessProbe(scheduler, realTime: realTime, early: early)
    outside.scheduleTwenty()
    try ctx.waitFor(outside.done, on: scheduler, "twenty delayed actions ran")
    let inside = EarlinessProbe(scheduler, realTime: realTime, early: early)
    scheduler.schedule {
        if realTime { Thread.sleep(forTimeInterval: 0.005) }
        inside.scheduleTwenty()
    }
    try ctx.waitFor(inside.done, on: scheduler, "twenty delayed actions scheduled from inside an action ran")
    for probe in [outside, inside] {
        if let error = probe.error.value { throw RuleFailure("`schedule(at:)` threw \(error)") }
    }
    try ctx.expect(early.count == 0, "\(early.count) ran early: \(early.all.prefix(3).joined(separator: ", "))")
}

/// Twenty actions due 1 to 21 ms ahead, each recording whether it ran early.
private final class EarlinessProbe: Sendable {
    let scheduler: any Scheduler
    let realTime: Bool
    let early: Recorder<String>
    let remaining = Box(20)
    let done = Signal()
    /// What `schedule(at:)` threw, if it did; `done` fires then too, so no one waits for it.
    let error = Box<SchedulerError?>(nil)

    init(_ scheduler: any Scheduler, realTime: Bool, early: Recorder<String>) {
        self.scheduler = scheduler
        self.realTime = realTime
        self.early = early
    }

    func scheduleTwenty() {
        do throws(SchedulerError) {
            for index in 0..<20 {
                try scheduleOne(after: .milliseconds(1) + .microseconds(Int64((index * 7_919) % 20_000)))
            }
        } catch {
            self.error.value = error
            done.fire()
        }
    }

    private func scheduleOne(after delay: Duration) throws(SchedulerError) {
        // The suite's clock is read before the subject's, so the delay it measures from here
        // can only be longer than the one the subject was asked for.
        let referenceStart = RuleContext.referenceNow()
        let deadline = try scheduler.now.advanced(by: delay)
        _ = try scheduler.schedule(at: deadline) { [self] in
            let now = scheduler.now
            let elapsed = RuleContext.referenceNow() - referenceStart
            if now < deadline { early.record("\(now.duration(to: deadline)) early on its own clock") }
            if realTime && elapsed < delay { early.record("\(delay - elapsed) early on the suite's monotonic clock") }
            if remaining.update({
                $0 -= 1
                return $0
            }) == 0 {
                done.fire()
            }
        }
    }
}
