import Foundation
import SchedulerProbes
import Schedulers

/// CAN-6: a repeating action disposed while no tick runs never ticks again, whether it is
/// disposed from another thread while the scheduler is held or from inside its own tick.
func repeatingDisposedBetweenTicksNeverTicksAgain(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let interval = Duration.milliseconds(5)
    // Twice: once disposed from another thread while the scheduler is held by a plain
    // action (so no tick is in flight and ticks fall due meanwhile), once from inside
    // the tick itself. Either way, nothing may tick after `dispose()` returned.
    for fromOutside in [true, false] {
        let ticks = Box(0)
        let disposed = Box(false)
        let afterDispose = Box(0)
        let own = Box<(any Disposable)?>(nil)
        let third = Signal()
        let start = try ctx.deadline(interval, on: scheduler)
        let handle = try ctx.attempt("repeating") { () throws(SchedulerError) in
            try scheduler.schedule(at: start, repeatingEvery: interval, leeway: .zero) {
                if disposed.value { afterDispose.update { $0 += 1 } }
                let tick = ticks.update {
                    $0 += 1
                    return $0
                }
                if tick == 3 {
                    if !fromOutside, let handle = own.value {
                        handle.dispose()
                        disposed.value = true
                    }
                    third.fire()
                }
            }
        }
        own.value = handle
        try ctx.waitFor(third, on: scheduler, "three ticks")
        if fromOutside {
            let gate = try ctx.hold(scheduler)
            // Let more ticks fall due while held: they must be dropped, not run later.
            if ctx.canHold { Thread.sleep(forTimeInterval: (interval * 3).timeInterval) }
            try ctx.fromAnotherThreadIfAllowed { handle.dispose() }
            disposed.value = true
            gate.fire()
        }
        try ctx.waitPast(try ctx.deadline(interval * 10, on: scheduler), on: scheduler)
        try ctx.expect(
            afterDispose.value == 0,
            """
            \(afterDispose.value) ticks started after dispose() returned \
            (\(fromOutside ? "disposed from another thread while no tick ran" : "disposed inside a tick"))
            """
        )
        try ctx.expect(handle.isDisposed, "isDisposed is false after dispose()")
    }
}
