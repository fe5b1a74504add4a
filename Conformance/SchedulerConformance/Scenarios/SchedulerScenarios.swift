import SchedulerProbes
import Schedulers

/// LIN-1's scenarios: schedules and disposals (of any action's handle, from any thread, the
/// scheduler's declared extra operations too) on a real-time scheduler, and what the suite's
/// actions saw when it ran them.
enum SchedulerScenarios {
    /// A scenario of 2–3 threads × 1–4 calls around a short sequential set-up.
    static func generate(
        _ random: inout SplitMix64, cancellation: Bool, extras: [SchedulerModel.ExtraOperation]
    ) -> Scenario<SchedulerModel.Operation> {
        var made = 0
        // One action in four makes one or two calls when it runs: a schedule, which queues
        // behind work already waiting, or a disposal of an action made before it or of one of
        // the next two, which may be waiting by then.
        func schedule(_ random: inout SplitMix64) -> SchedulerModel.Operation {
            made += 1
            let n = made
            guard random.next() % 4 == 0 else { return .schedule(n) }
            let body = (0..<1 + Int(random.next() % 2)).map { _ -> SchedulerModel.Operation in
                if cancellation, random.next() % 2 == 0 { return .dispose(1 + Int(random.next() % UInt64(made + 2))) }
                made += 1
                return .schedule(made)
            }
            return .schedule(n, body: body)
        }
        func operation(_ random: inout SplitMix64) -> SchedulerModel.Operation {
            let roll = random.next() % 10
            if !extras.isEmpty, roll == 0 { return .extra(extras[Int(random.next() % UInt64(extras.count))].name) }
            if cancellation, made > 0, roll >= 5 { return .dispose(random.action(of: made)) }
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
        case .extra: .crossing()
        case .schedule(let n, _): .makes(n)
        case .start, .end, .quiescent: .nothing
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
        let observed = Box<[ObservedRun<SchedulerModel.Outcome>]>([])
        let extras = subject.scenarioOperations
        let model = SchedulerModel(serial: serial, tracksCurrent: tracksCurrent, extras: extras)

        // Calls the suite's actions make: entries of the subject's side of the history.
        let calls = Box<[HistoryEntry<SchedulerModel.Operation, SchedulerModel.Outcome>]>([])
        let inside = HistoryEntry<SchedulerModel.Operation, SchedulerModel.Outcome>.subject

        @Sendable func perform(_ operation: SchedulerModel.Operation) -> SchedulerModel.Outcome {
            switch operation {
            case .schedule(let n, let body):
                if let handle = scheduler.schedule(action(n, body)) { handles.update { $0[n] = handle } }
            case .dispose(let n):
                // Without a handle the subject is not called, whenever its schedule took effect.
                guard let handle = handles.value[n] else { return .noHandle }
                handle.dispose()
            case .extra(let name):
                extras.first { $0.name == name }?.perform(scheduler)
            case .start, .end, .quiescent:
                preconditionFailure("\(operation) is observed, never performed")
            }
            return .done
        }

        @Sendable func action(_ n: Int, _ body: [SchedulerModel.Operation]) -> SchedulerAction {
            let pause = jitter.inside(action: n)
            return {
                let started = HistoryClock.tick()
                let current =
                    tracksCurrent ? CurrentScheduler.value.map { ObjectIdentifier($0) == identity } ?? false : nil
                for call in body {
                    let invoked = HistoryClock.tick()
                    let outcome = perform(call)
                    let returned = HistoryClock.tick()
                    calls.update {
                        $0.append(HistoryEntry(call, outcome, invoked: invoked, returned: returned, thread: inside))
                    }
                }
                if pause > .zero { spin(pause) }
                jitter.beforeReturn(of: n)
                let returned = HistoryClock.tick()
                observed.update {
                    $0.append(
                        ObservedRun(action: n, started: started, saw: .ran(asCurrent: current), returned: returned))
                }
            }
        }
        return ScenarioInstance(
            initial: model,
            perform: { operation in [(operation, perform(operation))] },
            finish: { () throws(RuleFailure) in
                let invoked = HistoryClock.tick()
                // Again while an action's own `schedule` returned after the last sentinel was
                // asked for: its work may be queued behind that sentinel (never behind the next).
                // Bounded by the bodies' depth, with room: a subject that reruns its actions
                // without end is judged by its history, not waited for.
                var asked: UInt64
                var rounds = 0
                repeat {
                    asked = HistoryClock.tick()
                    try context.quiesce(scheduler)
                    rounds += 1
                } while rounds < 16 && calls.value.contains(where: { $0.returned > asked && $0.operation.isSchedule })
                let returned = HistoryClock.tick()
                let runs = ObservedRun.entries(
                    observed.value, serial: serial, start: SchedulerModel.Operation.start,
                    end: SchedulerModel.Operation.end, done: .done)
                let quiescent = HistoryEntry<SchedulerModel.Operation, SchedulerModel.Outcome>(
                    .quiescent, .pending([]), invoked: invoked, returned: returned, thread: 0)
                return (runs.observed + calls.value + [quiescent], runs.busy)
            })
    }
}
