import Dispatch
import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let executors: [Rule] =
        [
            Rule(
                .exe1, "every job runs exactly once, with jobs enqueued from many threads at once",
                excludes: .threadConfined,
                rationale:
                    """
                    A job is a task's next step: one lost is a task that never finishes (and everything awaiting it \
                    hangs); one run twice is memory corruption.
                    """,
                hint:
                    """
                    `enqueue` is safe from any thread at once (a lock or an atomic queue, not a plain array), and \
                    every job taken off the queue is run, even when a drain races with a new enqueue.
                    """
            ) { ctx throws(RuleFailure) in
                let session = ExecutorSession(ctx)
                let producers = ctx.producerCount
                let perProducer = 250
                let total = producers * perProducer
                let ran = Recorder<Int>(expecting: total)
                try ctx.onThreads(producers) { producer in
                    for index in 0..<perProducer {
                        let id = producer * perProducer + index
                        session.submit { ran.record(id) }
                    }
                }
                if let drive = session.executor.drive { drive() }
                _ = ran.complete.wait(session.executor.drive == nil ? ctx.timing.mustHappen : .zero)
                var seen = Set<Int>()
                let doubled = ran.all.filter { !seen.insert($0).inserted }
                try ctx.expect(doubled.isEmpty, "\(doubled.count) jobs ran more than once")
                try ctx.expect(
                    seen.count == total, "\(total - seen.count) of \(total) jobs never ran (their tasks never finish)")
            },
            Rule(
                .exe2, "a serial executor never runs two jobs at once, even while one is held up",
                requires: .serial,
                excludes: .threadConfined,
                rationale:
                    """
                    An actor's state is protected by its executor alone: two of its jobs at once is a data race the \
                    compiler promised could not happen.
                    """,
                hint:
                    """
                    jobs are drained by one worker at a time (a serial queue, or a single drain loop guarded by an \
                    atomic flag); a slow job does not make the executor start another worker.
                    """
            ) { ctx throws(RuleFailure) in
                let session = ExecutorSession(ctx)
                let holding = Box(false)
                let beside = Box(0)
                let meter = OverlapMeter()
                let gate = try session.hold(inside: holding)
                let total = ctx.producerCount * 300
                let ran = Recorder<Int>(expecting: total)
                try ctx.onThreads(ctx.producerCount) { _ in
                    for _ in 0..<300 {
                        session.submit {
                            if holding.value { beside.update { $0 += 1 } }
                            meter.enter()
                            spin(500)
                            meter.leave()
                            ran.record(0)
                        }
                    }
                }
                // Time for work handed elsewhere to start beside the held job; ends at once when it does.
                if session.canHold {
                    _ = ran.complete.wait(ctx.timing.quietWindow)
                    // The window judges only if the threads work could be handed to got to run
                    // in it: on a busy machine the shared pool may be taken by others' waits.
                    if beside.value == 0, !ctx.sharedPoolRuns() || !holding.value {
                        gate.fire()
                        throw RuleFailure(
                            """
                            while the job was held, Dispatch's global queue did not get to run a probe within \
                            \(ctx.timing.mustHappen) (or the held job stopped waiting): whether a job would have \
                            started beside it was not tested
                            """,
                            kind: .inconclusive)
                    }
                }
                let startedWhileHeld = beside.value
                gate.fire()
                try ctx.expect(startedWhileHeld == 0, "\(startedWhileHeld) jobs ran while another job was held up")
                try session.waitFor(ran.complete, "\(total) jobs ran")
                try ctx.expect(meter.maximum <= 1, "up to \(meter.maximum) jobs ran at once")
            },
            Rule(
                .exe3,
                """
                a serial executor runs jobs in the order they were enqueued, queued together, one by one, or from \
                inside a job
                """,
                requires: .serial,
                rationale:
                    """
                    Calls into an actor from one place arrive in order only if its executor is FIFO; SE-0392 \
                    executors are queues. A job an actor's job enqueues (a task it starts, a call back into it) \
                    queues behind the work already waiting: a same-thread fast path that runs it first starves that \
                    work and reorders the calls.
                    """,
                hint:
                    """
                    the queue is FIFO (not a stack, nor a priority heap without a sequence tie-break); no job is run \
                    inline by `enqueue` or set aside for later; a job enqueued from the executor's own thread joins \
                    the back of the same queue (no 'run next' slot, no side list drained later). An executor that \
                    orders by priority by design (as default actors do) declares `.executorOrder(.priority)`; one \
                    that runs the jobs a job enqueues right after it, ahead of those waiting, declares \
                    `.nestedJobs(.aheadOfWaitingJobs)`.
                    """
            ) { ctx throws(RuleFailure) in
                let session = ExecutorSession(ctx)
                let count = 600
                let order = Recorder<Int>(expecting: count)
                let gate = try session.hold()
                for index in 0..<count / 2 { session.submit { order.record(index) } }
                gate.fire()
                for index in count / 2..<count { session.submit { order.record(index) } }
                try session.waitFor(order.complete, "\(count) jobs ran")
                try ctx.expectSequence(order.all, Array(0..<count))
                try nestedOrder(ctx, session)
                try priorityOrder(ctx, session)
                try enqueueOnAnIdleExecutorQueues(ctx, session)
            },
            Rule(
                .exe4, "a job enqueued from inside a job starts only after that job returns",
                requires: .taskExecutor,
                rationale:
                    """
                    A job run inside another is re-entrancy: the outer job's invariants are broken mid-way and the \
                    stack grows with every hop.
                    """,
                hint:
                    """
                    `enqueue` always queues, even on the executor's own thread; never run a job inline because the \
                    caller happens to be the executor.
                    """
            ) { ctx throws(RuleFailure) in
                let session = ExecutorSession(ctx)
                let task = session.executor.task!
                let rounds = 20
                let log = Recorder<String>(expecting: rounds * 3)
                for round in 0..<rounds {
                    Task(executorPreference: task) {
                        log.record("outer \(round) start")
                        Task(executorPreference: task) { log.record("inner \(round)") }
                        log.record("outer \(round) end")
                    }
                }
                try session.waitFor(log.complete, "\(rounds) jobs and the jobs they enqueued ran")
                let entries = log.all
                for round in 0..<rounds {
                    guard let end = entries.firstIndex(of: "outer \(round) end"),
                        let inner = entries.firstIndex(of: "inner \(round)")
                    else {
                        throw RuleFailure(
                            "round \(round): a job ran twice while another never ran (\(entries.count) entries)")
                    }
                    try ctx.expect(
                        inner > end, "round \(round): the job enqueued inside a job ran before that job returned")
                }
            },
        ] + executorIsolation
}

/// EXE-3's nested part: a backlog, the first of which enqueues two jobs from inside itself
/// and then has another thread enqueue one while it still runs; the first nested job enqueues
/// one more. Undeclared, every one queues behind the jobs already waiting. Declared
/// `NestedJobs.aheadOfWaitingJobs`, a job's follow-ups run right after it, in their order
/// (a nested job's own before its later siblings), and the job from another thread still
/// waits behind the backlog.
private func nestedOrder(_ ctx: RuleContext, _ session: ExecutorSession) throws(RuleFailure) {
    let backlog = ["b0", "b1", "b2", "b3"]
    let behind = backlog + ["nested 1", "nested 2", "from outside", "nested 1.1"]
    let ahead = ["b0", "nested 1", "nested 1.1", "nested 2"] + backlog.dropFirst() + ["from outside"]
    let declaredAhead = ctx.subject.declared.nestedJobs == .aheadOfWaitingJobs
    let expected = declaredAhead ? ahead : behind
    let log = Recorder<String>(expecting: expected.count)
    let bound = ctx.timing.mustHappen
    let held = try session.hold()
    session.submit(nesting: { enqueue in
        log.record("b0")
        enqueue {
            log.record("nested 1")
            session.submit { log.record("nested 1.1") }
        }
        enqueue { log.record("nested 2") }
        let outside = Signal()
        Thread {
            session.submit { log.record("from outside") }
            outside.fire()
        }.start()
        _ = outside.wait(bound)
    })
    for name in backlog.dropFirst() { session.submit { log.record(name) } }
    held.fire()
    try session.waitFor(log.complete, "\(expected.count) jobs, three of them enqueued from inside a job, ran")
    let declaration = Declaration.nestedJobs(.aheadOfWaitingJobs)
    try ctx.expect(
        log.all == expected,
        declaredAhead
            ? """
            ran \(log.all), expected \(expected): the subject declares \(declaration), so the jobs a job enqueues \
            run right after it in their order, and a job enqueued from another thread meanwhile waits behind \
            those already queued
            """
            : """
            ran \(log.all), expected \(expected): jobs enqueued from inside a job must queue behind those already \
            waiting
            """
                + (log.all == ahead ? " (an executor that runs them first by design declares \(declaration))" : "")
    )
}

/// EXE-3's last part: jobs of different priorities queued together behind a held one run in
/// the order they were enqueued (a Dispatch serial queue's contract, the suite's choice), or
/// by priority, FIFO among equals, for an executor that declares ``ExecutorOrder/priority``.
private func priorityOrder(_ ctx: RuleContext, _ session: ExecutorSession) throws(RuleFailure) {
    let priorities: [TaskPriority] = [.low, .high, .medium, .high, .low, .medium]
    let log = Recorder<Int>(expecting: priorities.count)
    let held = try session.hold()
    for (index, priority) in priorities.enumerated() { session.submit(priority: priority) { log.record(index) } }
    held.fire()
    try session.waitFor(log.complete, "\(priorities.count) jobs of three priorities ran")
    let fifo = Array(priorities.indices)
    // Stable: the highest first, equal priorities in the order they were enqueued.
    let byPriority = priorities.indices.sorted { (priorities[$0].rawValue, $1) > (priorities[$1].rawValue, $0) }
    let described = log.all.map {
        "#\($0) (\(String(describing: priorities[$0]).replacingOccurrences(of: "TaskPriority.", with: "")))"
    }
    .joined(separator: ", ")
    if ctx.subject.declared.executorOrder == .priority {
        try ctx.expect(
            log.all == byPriority,
            """
            jobs of three priorities queued together ran \(described), though the subject declares \
            \(Declaration.executorOrder(.priority)): expected the highest first, equal ones in the order they were \
            enqueued
            """
        )
        return
    }
    try ctx.expect(
        log.all == fifo,
        "jobs of three priorities queued together ran \(described), expected the order they were enqueued"
            + (log.all == byPriority
                ? " (an executor that orders by priority by design declares \(Declaration.executorOrder(.priority)))"
                : "")
    )
}
