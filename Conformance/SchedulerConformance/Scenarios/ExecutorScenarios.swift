import SchedulerProbes
import Schedulers

/// LIN-4's scenarios: jobs enqueued on a serial executor from several threads at once, some
/// of which enqueue further jobs from inside themselves, while other threads ask the
/// executor whether it isolates them; a virtual executor is driven by one of the threads.
enum ExecutorScenarios {
    /// A scenario of 2–3 threads × 1–4 calls after a set-up of up to 2 enqueues.
    ///
    /// Jobs the threads enqueue are numbered first, so that each one's predecessor, whose
    /// return an enqueue meets (``Jitter/Aim/follows(_:)``), is a job whose own nested
    /// enqueue, if it has one, is already made: an enqueue from outside then lands between
    /// that nested enqueue and its job's return.
    static func generate(_ random: inout SplitMix64, virtual: Bool) -> Scenario<SerialExecutorModel.Operation> {
        var made = 0
        func enqueue(_ random: inout SplitMix64) -> SerialExecutorModel.Operation {
            made += 1
            return .enqueue(made, nested: random.next() % 3 == 0 ? [0] : [])
        }
        func caller(_ random: inout SplitMix64) -> SerialExecutorModel.Operation {
            random.next() % 8 == 0 ? .askIsolation : enqueue(&random)
        }
        let initial = (0..<Int(random.next() % 3)).map { _ in enqueue(&random) }
        var parallel: [[SerialExecutorModel.Operation]] = []
        if virtual {
            parallel.append(
                (0..<1 + Int(random.next() % 2)).map { _ in random.next() % 4 == 0 ? .askIsolation : .drive })
        }
        for _ in 0..<(virtual ? 1 : 2) + Int(random.next() % 2) {
            parallel.append((0..<1 + Int(random.next() % 4)).map { _ in caller(&random) })
        }
        // The nested jobs get the numbers after every thread's.
        func numbered(_ operation: SerialExecutorModel.Operation) -> SerialExecutorModel.Operation {
            guard case .enqueue(let n, let nested) = operation, !nested.isEmpty else { return operation }
            made += 1
            return .enqueue(n, nested: [made])
        }
        return Scenario(
            initial: initial.map(numbered), parallel: parallel.map { $0.map(numbered) },
            final: virtual ? [.drive] : [])
    }

    /// What an operation acts on: an enqueue meets the return of the job made before it,
    /// when the executor decides whether it has more to run; a drive runs everyone's jobs; a
    /// question about isolation is asked while some job runs.
    static func aim(_ operation: SerialExecutorModel.Operation) -> Jitter.Aim {
        switch operation {
        case .enqueue(let n, _): .follows(n)
        case .drive: .shared
        case .askIsolation: .crossing()
        case .enqueueInside, .drained, .start, .end, .quiescent: .nothing
        }
    }

    /// What one job recorded: its run, and the jobs it enqueued from inside itself.
    private struct Records: Sendable {
        var runs: [ObservedRun<SerialExecutorModel.Outcome>] = []
        var nested: [HistoryEntry<SerialExecutorModel.Operation, SerialExecutorModel.Outcome>] = []
        var enqueued: Set<Int> = []
        var ended: Set<Int> = []
        /// Set when the scenario's calls are all done: the job that ends the last one fires
        /// ``idle``.
        var finishing = false
    }

    /// A fresh executor from `context`'s subject, whose jobs record when they started and
    /// returned, whether the executor said it isolated them, and when they enqueued their
    /// nested jobs.
    static func instance(_ context: RuleContext, jitter: Jitter) -> ScenarioInstance<SerialExecutorModel> {
        let session = ExecutorSession(context)
        let executor = session.executor
        let checksIsolation = executor.capabilities.contains(.checksIsolation)
        let records = Box(Records())
        let idle = Signal()
        let model = SerialExecutorModel(
            checksIsolation: checksIsolation, virtual: executor.drive != nil,
            nestedFirst: context.subject.declared.nestedJobs == .aheadOfWaitingJobs)

        @Sendable func isolated() -> Bool? { checksIsolation ? executor.serial?.isIsolatingCurrentContext() : nil }
        @Sendable func enqueue(_ n: Int, nested: [Int]) {
            records.update { _ = $0.enqueued.insert(n) }
            session.submit(job(n, nested: nested))
        }
        @Sendable func job(_ n: Int, nested: [Int]) -> @Sendable () -> Void {
            let pause = jitter.inside(action: n)
            return {
                let started = HistoryClock.tick()
                // An executor that cannot tell (nil) answers by `checkIsolated()`, as the
                // runtime asks it: returning is a yes, a trap is a crash of the worker.
                var answer = isolated()
                if checksIsolation, answer == nil, let serial = executor.serial {
                    serial.checkIsolated()
                    answer = true
                }
                if pause > .zero { spin(pause) }
                for child in nested {
                    let invoked = HistoryClock.tick()
                    enqueue(child, nested: [])
                    let returned = HistoryClock.tick()
                    records.update {
                        $0.nested.append(
                            HistoryEntry(
                                .enqueueInside(child), .done, invoked: invoked, returned: returned,
                                thread: HistoryEntry<SerialExecutorModel.Operation, SerialExecutorModel.Outcome>.subject
                            )
                        )
                    }
                }
                jitter.beforeReturn(of: n)
                let returned = HistoryClock.tick()
                let last = records.update { records in
                    records.runs.append(
                        ObservedRun(action: n, started: started, saw: .ran(isolated: answer), returned: returned))
                    records.ended.insert(n)
                    return records.finishing && records.ended == records.enqueued
                }
                if last { idle.fire() }
            }
        }
        return ScenarioInstance(
            initial: model,
            perform: { operation in
                switch operation {
                case .enqueue(let n, let nested):
                    enqueue(n, nested: nested)
                case .askIsolation:
                    return [(operation, .isolated(isolated()))]
                case .drive:
                    executor.drive?()
                    return [(.drive, .done), (.drained, .done)]
                case .enqueueInside, .drained, .start, .end, .quiescent:
                    preconditionFailure("\(operation) is observed, never performed")
                }
                return [(operation, .done)]
            },
            finish: { () throws(RuleFailure) in
                // A real-time executor must run what it was given without further calls, so
                // none is made: a job stranded by a lost wake-up stays pending for the model.
                let invoked = HistoryClock.tick()
                let done = records.update { records in
                    records.finishing = true
                    return records.ended == records.enqueued
                }
                if !done, executor.drive == nil { _ = idle.wait(context.timing.mustHappen) }
                let returned = HistoryClock.tick()
                let final = records.value
                let runs = ObservedRun.entries(
                    final.runs, serial: true, start: SerialExecutorModel.Operation.start,
                    end: SerialExecutorModel.Operation.end, done: .done)
                let quiescent = HistoryEntry<SerialExecutorModel.Operation, SerialExecutorModel.Outcome>(
                    .quiescent, .pending(final.enqueued.subtracting(final.ended).sorted()), invoked: invoked,
                    returned: returned, thread: 0)
                return (runs.observed + final.nested + [quiescent], runs.busy)
            })
    }
}
