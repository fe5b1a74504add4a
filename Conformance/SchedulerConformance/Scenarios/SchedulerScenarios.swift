import SchedulerProbes
import Schedulers

/// LIN-1's scenarios: schedules, recursions and their reschedules, and disposals (of any
/// action's or recursion's handle, from any thread, the scheduler's declared extra
/// operations too) on a real-time scheduler, and what the suite's actions and runs saw when
/// it ran them. A third of them, on a subject with timers, also schedule work after 0–2 ms
/// (`schedule(after:)` and `schedule(at:)` in turn) and, with repeating timers, series that
/// tick every 1–2 ms until the scenario ends.
enum SchedulerScenarios {
    /// A scenario of 2–3 threads × 1–4 calls around a short sequential set-up.
    static func generate(
        _ random: inout SplitMix64, cancellation: Bool, extras: [SchedulerModel.ExtraOperation],
        timers: Bool = false, repeating: Bool = false
    ) -> Scenario<SchedulerModel.Operation> {
        // Only some scenarios: the plain races (a dispose against its target's start) keep
        // most of the draws, and a timed action costs the scenario a real wait.
        let timed = timers && random.next() % 3 == 0
        var made = 0
        var recursions: [Int] = []
        // A call an action or run makes when it runs: a schedule, which queues behind work
        // already waiting, a disposal of an action made before it or of one of the next two,
        // which may be waiting by then, or a reschedule of a recursion made before it.
        func nested(_ random: inout SplitMix64) -> SchedulerModel.Operation {
            let roll = random.next() % 6
            if !recursions.isEmpty, roll == 0 {
                return .reschedule(random.element(of: recursions))
            }
            if cancellation, roll >= 3 { return .dispose(1 + Int(random.next() % UInt64(made + 2))) }
            made += 1
            return .schedule(made)
        }
        // One action in four makes one or two calls when it runs. One in twelve is a recursion
        // of one to three runs, each asking for the next; a run may make a call too, before or
        // after asking.
        func schedule(_ random: inout SplitMix64) -> SchedulerModel.Operation {
            made += 1
            let n = made
            if random.next() % 12 == 0 {
                recursions.append(n)
                let runs = 1 + Int(random.next() % 3)
                let bodies = (0..<runs).map { run -> [SchedulerModel.Operation] in
                    var body: [SchedulerModel.Operation] = run < runs - 1 ? [.rerun(n)] : []
                    if random.next() % 3 == 0 { body.insert(nested(&random), at: Int(random.next() % 2) * body.count) }
                    return body
                }
                return .scheduleRecursive(n, bodies: bodies)
            }
            if timed, repeating, random.next() % 8 == 0 {
                return .scheduleRepeating(n, ms: 1, every: 1 + Int(random.next() % 2))
            }
            // A timed action is due at once half the time, while the plain work scheduled around
            // it still waits, and makes calls half the time, which go behind that work.
            if timed, random.next() % 3 == 0 {
                let ms = random.next() % 2 == 0 ? 0 : 1 + Int(random.next() % 2)
                let calls = random.next() % 2 == 0 ? 1 + Int(random.next() % 2) : 0
                return .scheduleAfter(n, ms: ms, body: (0..<calls).map { _ in nested(&random) })
            }
            guard random.next() % 4 == 0 else { return .schedule(n) }
            return .schedule(n, body: (0..<1 + Int(random.next() % 2)).map { _ in nested(&random) })
        }
        func operation(_ random: inout SplitMix64) -> SchedulerModel.Operation {
            let roll = random.next() % 10
            if !extras.isEmpty, roll == 0 { return .extra(extras[Int(random.next() % UInt64(extras.count))].name) }
            if !recursions.isEmpty, roll == 1, random.next() % 2 == 0 {
                return .reschedule(random.element(of: recursions))
            }
            if cancellation, made > 0, roll >= 5 {
                // A plain action when the draw allows: a dispose meets the return of the action
                // before its target, the race a serial subject's disposal has to win.
                let target = random.action(of: made)
                return .dispose(recursions.contains(target) ? random.action(of: made) : target)
            }
            return schedule(&random)
        }
        // The set-up only schedules, so the parallel part has pending work to dispose.
        let initial = (0..<1 + Int(random.next() % 3)).map { _ in schedule(&random) }
        let parallel = (0..<2 + Int(random.next() % 2)).map { _ in
            (0..<1 + Int(random.next() % 4)).map { _ in operation(&random) }
        }
        let final = (0..<Int(random.next() % 2)).map { _ in operation(&random) }
        return Scenario(initial: initial, parallel: parallel, final: final)
    }

    /// What an operation acts on: a dispose its action, an extra call the scheduler's state.
    static func aim(_ operation: SchedulerModel.Operation) -> Jitter.Aim {
        switch operation {
        case .dispose(let n): .action(n)
        case .extra, .reschedule: .crossing()
        case .schedule(let n, _), .scheduleRecursive(let n, _): .makes(n)
        // Run at a deadline, not soon after the call: no meeting waits for them.
        case .scheduleAfter, .scheduleRepeating, .rerun, .start, .end, .quiescent: .nothing
        }
    }

    /// A fresh scheduler from `context`'s subject, whose actions record when they started
    /// and returned and whether they ran as the current scheduler.
    static func instance(_ context: RuleContext, jitter: Jitter) -> ScenarioInstance<SchedulerModel> {
        let subject = context.subject
        let capabilities = subject.capabilities
        let scheduler = subject.makeScheduler()
        let identity = ObjectIdentifier(scheduler)
        let tracksCurrent = capabilities.contains(.tracksCurrent)
        let serial = capabilities.contains(.serial)
        let handles = Box<[Int: any Disposable]>([:])
        // Per recursion, the runs asked for (its first, and each reschedule that had a run's
        // `reschedule` to call) and the runs that returned, their observations recorded; and
        // whether it was disposed.
        let recursions = Box<[Int: (asked: Int, ran: Int, disposed: Bool)]>([:])
        @Sendable func tally(_ n: Int, asked: Int = 0, ran: Int = 0, disposed: Bool = false) {
            recursions.update { recursions in
                guard var tally = recursions[n] else { return }
                tally.asked += asked
                tally.ran += ran
                tally.disposed = tally.disposed || disposed
                recursions[n] = tally
            }
        }
        /// Timed work: each one-shot's deadline, signalled when it runs; each series' first
        /// deadline, interval and ticks so far.
        let timed = Box<(oneShots: [Int: (due: SchedulerTime, ran: Signal)], series: [Int: TimedSeries])>(([:], [:]))
        /// The actions and series whose handles the scenario disposed.
        let disposed = Box<Set<Int>>([])
        /// Runs started and not yet returned: the finish waits for them, since a run's calls
        /// are in the history as soon as made but its start only once it returned.
        let running = Box(0)
        let suite = SuiteRuns<SchedulerModel.Operation, SchedulerModel.Outcome>(jitter: jitter)
        let extras = subject.scenarioOperations
        let model = SchedulerModel(serial: serial, tracksCurrent: tracksCurrent, extras: extras)

        @Sendable func perform(_ operation: SchedulerModel.Operation) -> SchedulerModel.Outcome {
            switch operation {
            case .schedule(let n, let body):
                if let handle = scheduler.schedule({ run(n, body, rerun: nil) }) { handles.update { $0[n] = handle } }
            case .scheduleRecursive(let n, let bodies):
                recursions.update { $0[n] = (asked: 1, ran: 0, disposed: false) }
                let block = suite.recursion(n, bodies) { body, rerun in
                    run(n, body, rerun: rerun)
                    tally(n, ran: 1)
                }
                if let handle = scheduler.scheduleRecursive(block) { handles.update { $0[n] = handle } }
            case .reschedule(let n):
                // Counted once made: a serial scheduler runs what it asks for only after the
                // action that made it returned, and the finish begins once the threads' calls did.
                guard suite.reschedule(n) else { return .noHandle }
                tally(n, asked: 1)
            case .scheduleAfter(let n, let ms, let body):
                // The deadline as the subject's clock gave it before the call: the subject
                // reads its own after, so its deadline is never earlier than this one.
                let due = (try? scheduler.now.advanced(by: .milliseconds(ms))) ?? .distantFuture
                let ran = Signal()
                timed.update { $0.oneShots[n] = (due, ran) }
                let made: SchedulerAction = {
                    run(n, body, rerun: nil, due: due)
                    ran.fire()
                }
                // Both doors: `after` on odd numbers, `at` on even ones.
                let handle =
                    n % 2 == 1
                    ? try? scheduler.schedule(after: .milliseconds(ms), made) : try? scheduler.schedule(at: due, made)
                if let handle { handles.update { $0[n] = handle } }
            case .scheduleRepeating(let n, let ms, let every):
                let first = (try? scheduler.now.advanced(by: .milliseconds(ms))) ?? .distantFuture
                timed.update { $0.series[n] = TimedSeries(first: first, every: .milliseconds(every)) }
                let tick: SchedulerAction = {
                    // Tick k is due no earlier than k intervals after the first, whatever the
                    // subject does with missed ones.
                    let due = timed.update { state -> SchedulerTime in
                        defer { state.series[n]?.ticks += 1 }
                        return state.series[n]?.due ?? .distantFuture
                    }
                    run(n, [], rerun: nil, due: due)
                }
                let handle = try? scheduler.schedule(
                    at: first, repeatingEvery: .milliseconds(every), leeway: .zero, tick)
                if let handle { handles.update { $0[n] = handle } }
            case .rerun:
                preconditionFailure("\(operation) is made only inside its own run")
            case .dispose(let n):
                // Without a handle the subject is not called, whenever its schedule took effect.
                guard let handle = handles.value[n] else { return .noHandle }
                handle.dispose()
                tally(n, disposed: true)
                disposed.update { _ = $0.insert(n) }
            case .extra(let name):
                extras.first { $0.name == name }?.perform(scheduler)
            case .start, .end, .quiescent:
                preconditionFailure("\(operation) is observed, never performed")
            }
            return .done
        }

        /// Runs action n, or a run of recursion n (whose `rerun` is that run's `reschedule`),
        /// recording its start, what it saw, its calls and its return.
        @Sendable func run(
            _ n: Int, _ body: [SchedulerModel.Operation], rerun: (@Sendable () -> Void)?, due: SchedulerTime? = nil
        ) {
            running.update { $0 += 1 }
            defer { running.update { $0 -= 1 } }
            let started = HistoryClock.tick()
            let current =
                tracksCurrent ? CurrentScheduler.value.map { ObjectIdentifier($0) == identity } ?? false : nil
            let early = due.map { scheduler.now < $0 } ?? false
            suite.run(n, started: started, saw: early ? .early : .ran(asCurrent: current), body: body) { call in
                guard case .rerun = call, let rerun else { return perform(call) }
                tally(n, asked: 1)
                rerun()
                return .done
            }
        }
        return ScenarioInstance(
            initial: model,
            perform: { operation in [(operation, perform(operation))] },
            finish: { () throws(RuleFailure) in
                // The kept reschedules hold their recursions, whose blocks hold the suite.
                defer { suite.forgetReschedules() }
                // Timed work last: every one-shot not disposed runs (a bound far past its
                // deadline), though work still queued may dispose it first, so the queue is
                // let run between short waits; then the series still live are disposed, in the
                // history, so a tick after that is a tick after its disposal.
                let waiting = timed.value
                let giveUp = ContinuousClock.now + context.timing.mustHappen
                while !waiting.oneShots.isEmpty, ContinuousClock.now < giveUp {
                    try context.quiesce(scheduler)
                    let open = waiting.oneShots.filter { !$0.value.ran.hasFired && !disposed.value.contains($0.key) }
                    guard let next = open.min(by: { $0.value.due < $1.value.due }) else { break }
                    _ = next.value.ran.wait(.milliseconds(5))
                }
                var disposals: [HistoryEntry<SchedulerModel.Operation, SchedulerModel.Outcome>] = []
                for n in waiting.series.keys.sorted() where !disposed.value.contains(n) {
                    guard let handle = handles.value[n] else { continue }
                    let invoked = HistoryClock.tick()
                    handle.dispose()
                    disposals.append(
                        HistoryEntry(.dispose(n), .done, invoked: invoked, returned: HistoryClock.tick(), thread: 0))
                }
                let invoked = HistoryClock.tick()
                // Again while an action's own `schedule` returned after the last sentinel was
                // asked for, a recursion has runs to come, or a run is still under way: that
                // work may be queued behind the sentinel (a run's owed runs are queued once it
                // returned), never behind the next. (A recursion's run that disposed its own
                // recursion was once left running, its calls in the history without its start.)
                // Bounded by the bodies' depth, with room: a subject that reruns its actions
                // without end is judged by its history, not waited for.
                var asked: UInt64
                var rounds = 0
                repeat {
                    asked = HistoryClock.tick()
                    try context.quiesce(scheduler)
                    rounds += 1
                } while rounds < 16
                    && (suite.calls.value.contains { $0.returned > asked && $0.operation.isSchedule }
                        || recursions.value.values.contains { !$0.disposed && $0.ran < $0.asked }
                        || running.value > 0)
                let returned = HistoryClock.tick()
                let runs = ObservedRun.entries(
                    suite.observed.value, serial: serial, start: SchedulerModel.Operation.start,
                    end: SchedulerModel.Operation.end, done: .done)
                let quiescent = HistoryEntry<SchedulerModel.Operation, SchedulerModel.Outcome>(
                    .quiescent, .pending([]), invoked: invoked, returned: returned, thread: 0)
                return (runs.observed + suite.calls.value + disposals + [quiescent], runs.busy)
            })
    }
}

/// A repeating series of LIN-1's: its first deadline, its interval and the ticks so far.
struct TimedSeries {
    var first: SchedulerTime
    var every: Duration
    var ticks = 0

    /// The earliest the next tick may start: `ticks` intervals after the first.
    var due: SchedulerTime { (try? first.advanced(by: every * ticks)) ?? .distantFuture }
}
