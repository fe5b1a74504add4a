import SchedulerProbes
import Schedulers

/// LIN-2's scenarios: one thread drives a virtual-time scheduler (advance by, advance to,
/// step) while others schedule, start recursions and reschedule them, dispose and read `now`,
/// as a test's tasks do while the test advances time; every scenario ends by running
/// whatever is left. Unless the subject declares `.drivenFrom(.oneThread)`, a third of the
/// scenarios drive from a second thread too, once among its other calls; those use only
/// the protocol's two drives, `advance(to:)` and `step()`, on both threads (`advance(by:)`
/// reads the time and then drives, two calls that another drive may come between).
enum VirtualTimeScenarios {
    /// A scenario of a driver and 1–2 other threads, 1–4 calls each.
    static func generate(
        _ random: inout SplitMix64, capabilities: SchedulerCapabilities, drivenFrom: DrivenFrom = .anyThread
    ) -> Scenario<VirtualTimeModel.Operation> {
        let twoDrivers = drivenFrom == .anyThread && random.next() % 3 == 0
        var made = 0
        var recursions: [Int] = []
        let cancellation = capabilities.contains(.cancellation)
        // One action in four makes one or two calls when it runs: a schedule (for the present
        // or a time) or a disposal of an action made before it or of one of the next two.
        func schedule(_ random: inout SplitMix64, body allowed: Bool = true) -> VirtualTimeModel.Operation {
            made += 1
            let n = made
            let at = random.next() % 3 == 0 ? nil : Int(random.next() % 6)
            // One in six of the timed ones is a recursion of one to three runs, each asking for
            // the next (a schedule for the present is what LIN-2's race at an advance's end needs).
            if allowed, at != nil, random.next() % 6 == 0 {
                recursions.append(n)
                let runs = 1 + Int(random.next() % 3)
                return .scheduleRecursive(n, bodies: (0..<runs).map { $0 < runs - 1 ? [.rerun(n)] : [] })
            }
            guard allowed, random.next() % 4 == 0 else { return .schedule(n, at: at) }
            let body = (0..<1 + Int(random.next() % 2)).map { _ -> VirtualTimeModel.Operation in
                if cancellation, random.next() % 2 == 0 { return .dispose(1 + Int(random.next() % UInt64(made + 2))) }
                return schedule(&random, body: false)
            }
            return .schedule(n, at: at, body: body)
        }
        func caller(_ random: inout SplitMix64) -> VirtualTimeModel.Operation {
            switch random.next() % 10 {
            case 0..<2: .now
            case 2..<4 where cancellation && made > 0: .dispose(random.action(of: made))
            case 4 where !recursions.isEmpty && random.next() % 2 == 0:
                .reschedule(random.element(of: recursions))
            default: schedule(&random)
            }
        }
        func driver(_ random: inout SplitMix64) -> VirtualTimeModel.Operation {
            switch random.next() % 4 {
            case 0 where !twoDrivers: .drive(.by(Int(random.next() % 4)))
            case 0, 1: .drive(.to(Int(random.next() % 7)))
            case 2 where capabilities.contains(.singleStep): .drive(.step)
            default: .now
            }
        }
        let initial = (0..<1 + Int(random.next() % 3)).map { _ in schedule(&random) }
        var parallel = [(0..<1 + Int(random.next() % 3)).map { _ in driver(&random) }]
        for _ in 0..<1 + Int(random.next() % 2) {
            parallel.append((0..<1 + Int(random.next() % 4)).map { _ in caller(&random) })
        }
        if twoDrivers {
            // One drive of its own among the second thread's calls, which it keeps: the races
            // of one driver against the others' calls are drawn as often as without it.
            let at = Int(random.next() % UInt64(parallel[1].count + 1))
            let step = capabilities.contains(.singleStep) && random.next() % 2 == 0
            parallel[1].insert(.drive(step ? .step : .to(Int(random.next() % 7))), at: at)
        }
        return Scenario(initial: initial, parallel: parallel, final: [.now, .drive(.all)])
    }

    /// What an operation acts on: a dispose its action, a driving call the virtual time.
    static func aim(_ operation: VirtualTimeModel.Operation) -> Jitter.Aim {
        switch operation {
        case .dispose(let n): .action(n)
        case .drive(.by), .drive(.to): .advances
        case .drive: .shared
        case .schedule(let n, nil, _): .arrives(n)
        case .schedule(let n, _, _), .scheduleRecursive(let n, _): .makes(n)
        case .reschedule: .crossing()
        default: .nothing
        }
    }

    /// A fresh virtual-time scheduler whose actions record when they started and returned,
    /// the time they saw and whether they ran as the current scheduler.
    static func instance(_ context: RuleContext, jitter: Jitter) throws(RuleFailure) -> ScenarioInstance<
        VirtualTimeModel
    > {
        let tracksCurrent = context.subject.capabilities.contains(.tracksCurrent)
        guard let scheduler = context.makeScheduler() as? any VirtualTimeScheduler else {
            throw RuleFailure("claims virtualTime but its scheduler is no VirtualTimeScheduler", kind: .error)
        }
        let identity = ObjectIdentifier(scheduler)
        let origin = scheduler.now
        let handles = Box<[Int: any Disposable]>([:])
        let suite = SuiteRuns<VirtualTimeModel.Operation, VirtualTimeModel.Outcome>(jitter: jitter)
        @Sendable func offset(_ time: SchedulerTime) -> Int64 {
            let duration = origin.duration(to: time)
            return duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        }
        @Sendable func at(_ ms: Int) -> SchedulerTime { (try? origin.advanced(by: .milliseconds(ms))) ?? origin }
        /// A schedule or a dispose, from a scenario's thread or an action.
        @Sendable func call(_ operation: VirtualTimeModel.Operation) -> VirtualTimeModel.Outcome {
            switch operation {
            case .schedule(let n, let ms, let body):
                let made: SchedulerAction = { run(n, body, rerun: nil) }
                let handle = ms.map { try? scheduler.schedule(at: at($0), made) } ?? scheduler.schedule(made)
                if let handle { handles.update { $0[n] = handle } }
            case .scheduleRecursive(let n, let bodies):
                let block = suite.recursion(n, bodies) { body, rerun in run(n, body, rerun: rerun) }
                if let handle = scheduler.scheduleRecursive(block) { handles.update { $0[n] = handle } }
            case .reschedule(let n):
                guard suite.reschedule(n) else { return .noHandle }
            case .dispose(let n):
                // Without a handle the subject is not called, whenever its schedule took effect.
                guard let handle = handles.value[n] else { return .noHandle }
                handle.dispose()
            default:
                preconditionFailure("\(operation) is not made from inside an action")
            }
            return .done
        }
        /// Runs action n, or a run of recursion n (whose `rerun` is that run's `reschedule`),
        /// recording its start, the time and current scheduler it saw, its calls and its return.
        @Sendable func run(_ n: Int, _ body: [VirtualTimeModel.Operation], rerun: (@Sendable () -> Void)?) {
            let started = HistoryClock.tick()
            let time = offset(scheduler.now)
            let current =
                tracksCurrent ? CurrentScheduler.value.map { ObjectIdentifier($0) == identity } ?? false : nil
            suite.run(n, started: started, saw: .ran(at: time, asCurrent: current), body: body) { operation in
                guard case .rerun = operation, let rerun else { return call(operation) }
                rerun()
                return .done
            }
        }
        return ScenarioInstance(
            initial: VirtualTimeModel(
                tracksCurrent: tracksCurrent, exclusive: context.subject.declared.advanceTarget == .exclusive),
            perform: { operation in
                switch operation {
                case .schedule, .scheduleRecursive, .reschedule, .dispose:
                    return [(operation, call(operation))]
                case .now:
                    return [(.now, .time(offset(scheduler.now)))]
                case .drive(let target):
                    var outcome = VirtualTimeModel.Outcome.done
                    switch target {
                    case .by(let ms): try? scheduler.advance(by: .milliseconds(ms))
                    case .to(let ms): scheduler.advance(to: at(ms))
                    case .step: outcome = .stepped(scheduler.step())
                    case .all: scheduler.stepAll()
                    }
                    return [(.drive(target), .done), (.settle(target), outcome)]
                case .settle, .start, .end, .rerun:
                    preconditionFailure("\(operation) is observed, or made inside its own run, never performed")
                }
            },
            finish: { () throws(RuleFailure) in
                // The kept reschedules hold their recursions, whose blocks hold the suite.
                defer { suite.forgetReschedules() }
                let runs = ObservedRun.entries(
                    suite.observed.value, serial: true, start: VirtualTimeModel.Operation.start,
                    end: VirtualTimeModel.Operation.end, done: .done)
                return (runs.observed + suite.calls.value, runs.busy)
            })
    }
}
