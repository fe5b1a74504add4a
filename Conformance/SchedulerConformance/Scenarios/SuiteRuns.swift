import SchedulerProbes

/// The suite's side of LIN-1's and LIN-2's scenarios: its actions and recursions' runs, the
/// calls they make (entries of the subject's side of the history) and what each run saw.
final class SuiteRuns<Operation: Sendable, Outcome: Hashable & Sendable>: Sendable {
    /// Calls the suite's actions and runs made.
    let calls = Box<[HistoryEntry<Operation, Outcome>]>([])
    /// Each run, once it returned.
    let observed = Box<[ObservedRun<Outcome>]>([])
    private let jitter: Jitter
    /// Each recursion's latest run's `reschedule`.
    private let reschedules = Box<[Int: @Sendable () -> Void]>([:])

    init(jitter: Jitter) { self.jitter = jitter }

    /// Runs action n (or a run of recursion n), which saw `saw` when it `started`: makes
    /// each call of `body` through `call`, recording it, holds for the jitter's pause, and
    /// records the run.
    func run(
        _ n: Int, started: UInt64, saw: Outcome, body: [Operation], call: (Operation) -> Outcome
    ) {
        for operation in body {
            let invoked = HistoryClock.tick()
            let outcome = call(operation)
            let returned = HistoryClock.tick()
            calls.update {
                $0.append(
                    HistoryEntry(
                        operation, outcome, invoked: invoked, returned: returned,
                        thread: HistoryEntry<
                            Operation, Outcome
                        >.subject))
            }
        }
        let pause = jitter.inside(action: n)
        if pause > .zero { spin(pause) }
        jitter.beforeReturn(of: n)
        let returned = HistoryClock.tick()
        observed.update { $0.append(ObservedRun(action: n, started: started, saw: saw, returned: returned)) }
    }

    /// The block of recursion n: keeps each run's `reschedule` as the latest, and hands run
    /// k its body (`bodies[k]`, none past the last) and its `reschedule`.
    func recursion(
        _ n: Int, _ bodies: [[Operation]],
        run: @escaping @Sendable (_ body: [Operation], _ rerun: @escaping @Sendable () -> Void) -> Void
    ) -> @Sendable (@escaping @Sendable () -> Void) -> Void {
        let runs = Box(0)
        return { [reschedules] reschedule in
            reschedules.update { $0[n] = reschedule }
            let index = runs.update {
                $0 += 1
                return $0 - 1
            }
            run(index < bodies.count ? bodies[index] : [], reschedule)
        }
    }

    /// Lets go of every kept `reschedule`: each holds its recursion, whose block holds this.
    func forgetReschedules() { reschedules.value = [:] }

    /// Calls recursion n's latest run's `reschedule`; false when none ran yet.
    func reschedule(_ n: Int) -> Bool {
        guard let reschedule = reschedules.value[n] else { return false }
        reschedule()
        return true
    }
}

/// `scheduleRecursive` of recursion n with the bodies of its runs, as a scenario prints it.
func describe<Call: CustomStringConvertible>(recursion n: Int, _ bodies: [[Call]]) -> String {
    "scheduleRecursive #\(n) { "
        + bodies.map { $0.isEmpty ? "run" : $0.map(\.description).joined(separator: "; ") }.joined(separator: " | ")
        + " }"
}
