import Dispatch
import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let executorIsolation: [Rule] = [
        Rule(
            .exe5,
            """
            `isSameExclusiveExecutionContext` is reflexive, symmetric and transitive, and false for distinct executors
            """,
            requires: .serial,
            rationale:
                """
                The runtime asks it to decide whether a hop between actors is needed (SE-0392); a wrong answer either \
                runs code without its isolation or deadlocks a hop that was not needed. Two distinct executors called \
                one context let two actors' jobs run at once.
                """,
            hint:
                """
                compare what really makes the context exclusive (the queue, the thread, the underlying scheduler), \
                the same way from both sides; never the type, a label, or a state two idle executors share (the \
                thread each is running on, say).
                """
        ) { ctx throws(RuleFailure) in
            // Three from the factory: distinct ones unless the adapter says they share a
            // context (executors on one scheduler, one event loop handed out twice).
            let executors = (0..<3).map { _ in ctx.subject.makeExecutor() }
            var same: [[Bool]] = []
            for (i, one) in executors.enumerated() {
                var row: [Bool] = []
                for (j, other) in executors.enumerated() {
                    guard let answer = one.sameContext(other) else {
                        throw RuleFailure(
                            "executor \(i) could not be compared with executor \(j) (not serial, or of another type)",
                            kind: .error)
                    }
                    row.append(answer)
                }
                same.append(row)
            }
            for i in executors.indices {
                try ctx.expect(same[i][i], "executor \(i) says it is not its own execution context")
                for j in executors.indices where j != i {
                    try ctx.expect(
                        same[i][j] == same[j][i],
                        "executor \(i) says \(same[i][j]) of \(j), \(j) says \(same[j][i]) of \(i)")
                    let distinct = executors[i].exclusiveContext != executors[j].exclusiveContext
                    try ctx.expect(
                        !(distinct && same[i][j]),
                        """
                        two executors the factory made on distinct contexts (\(i) and \(j)) say they are one \
                        exclusive context: actors on them would run at once
                        """
                    )
                    for k in executors.indices where k != i && k != j && same[i][j] && same[j][k] {
                        try ctx.expect(
                            same[i][k], "executor \(i) is one context with \(j), \(j) with \(k), but \(i) not with \(k)"
                        )
                    }
                }
            }
        },
        Rule(
            .exe6, "inside every job the executor says it is isolating, and `checkIsolated()` returns",
            requires: [.serial, .checksIsolation],
            rationale:
                """
                `assumeIsolated` and `preconditionIsolated` fall back on the executor's own answer (SE-0424, \
                SE-0471): an executor that denies its own jobs crashes correct code.
                """,
            hint:
                """
                isolation is known for every job the executor runs, jobs that waited behind another included (set the \
                marker around every job, not per drain), and across the threads it uses.
                """
        ) { ctx throws(RuleFailure) in
            let session = ExecutorSession(ctx)
            let serial = session.executor.serial!
            let count = 200
            let denied = Recorder<Int>()
            let ran = Recorder<Int>(expecting: count)
            // Half the jobs wait behind a held one, so a marker set only per drain shows.
            let gate = try session.hold()
            for index in 0..<count {
                if index == count / 2 { gate.fire() }
                session.submit {
                    if serial.isIsolatingCurrentContext() == false {
                        denied.record(index)
                    } else {
                        serial.checkIsolated()
                    }
                    ran.record(index)
                }
            }
            try session.waitFor(ran.complete, "\(count) jobs ran")
            try ctx.expect(
                denied.count == 0,
                "\(denied.count) of \(count) jobs were told they are not isolated (first: job \(denied.all.first ?? 0))"
            )
        },
        Rule(
            .exe7,
            """
            outside its jobs the executor denies isolation: on a plain thread, in another executor's job, and \
            `checkIsolated()` traps
            """,
            requires: [.serial, .checksIsolation],
            rationale:
                """
                An executor that says yes everywhere lets `assumeIsolated` run actor code from any thread: the data \
                race the checks exist to stop.
                """,
            hint:
                """
                answer from the current thread's state (a thread-local set around each job, the queue-specific \
                value), not from whether the executor is busy or has ever run a job; `checkIsolated()` must trap \
                where it cannot prove isolation (checked in a process of its own).
                """
        ) { ctx throws(RuleFailure) in
            let session = ExecutorSession(ctx)
            let serial = session.executor.serial!
            // Busy first, so an answer that means 'some job is running' shows.
            let gate = try session.hold()
            let plain = try ctx.onFreshThread { serial.isIsolatingCurrentContext() }
            let elsewhere = try ctx.perform("a job of another executor") { serial.isIsolatingCurrentContext() }
            gate.fire()
            try ctx.expect(plain != true, "on a plain thread it answers true")
            try ctx.expect(elsewhere != true, "in another executor's job it answers true")
            // Another executor of its own kind, from the subject's factory: on a pool they share,
            // its job runs on one of this executor's threads, which the probe's never does.
            var siblingDenies = true
            if let sibling = session.sibling() {
                let answer = Box<Bool?>(nil)
                let asked = Signal()
                sibling.submit {
                    answer.value = serial.isIsolatingCurrentContext()
                    asked.fire()
                }
                try sibling.waitFor(asked, "a job of a second executor from the subject's factory")
                siblingDenies = answer.value == false
                try ctx.expect(
                    answer.value != true,
                    "in a job of a second executor the subject made (another exclusive context) it answers true")
            }
            // nil is allowed ("cannot tell"): `checkIsolated()` must then trap, which ends a
            // process, so it is judged in a process of its own where the harness has one.
            let trapped = try ctx.expectTrap(
                TrapProbes.checkIsolatedOutside, "checkIsolated() returned on a thread none of its jobs runs on")
            try ctx.requireExercised(
                (plain == false && elsewhere == false && siblingDenies) || trapped == true,
                """
                the executor answers nil (cannot tell) outside its jobs, and checkIsolated() trapping can be judged \
                only in a process of its own (run the conformance tool)
                """
            )
        },
        Rule(
            .exe8,
            """
            a task that prefers the executor runs there all its life: after suspensions, and in its `async let` and \
            group children
            """,
            requires: [.taskExecutor, .serial, .checksIsolation],
            rationale:
                """
                SE-0417: a task executor preference holds for the task's whole life and is inherited by its \
                structured children; work that escapes to the global pool loses the executor's thread, ordering and \
                isolation.
                """,
            hint:
                """
                `asUnownedTaskExecutor()` returns this executor itself, and jobs run with \
                `runSynchronously(isolatedTo:taskExecutor:)` (or `on:` the task executor), so the runtime knows the \
                preference is satisfied.
                """
        ) { ctx throws(RuleFailure) in
            let session = ExecutorSession(ctx)
            let executor = session.executor
            let serial = executor.serial!
            let places = Recorder<String>()
            let done = Signal()
            Task(executorPreference: executor.task!) {
                func mark(_ place: String) { if serial.isIsolatingCurrentContext() != true { places.record(place) } }
                mark("its first job")
                await Task.yield()
                mark("after a yield")
                async let child: Void = mark("an async let child")
                await child
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { mark("a task group child") }
                }
                mark("after awaiting its children")
                done.fire()
            }
            if let drive = executor.drive {
                // A virtual executor runs only when driven; each drive runs what became ready.
                for _ in 0..<100 where !done.hasFired { drive() }
            }
            try session.waitFor(done, "a task preferring the executor finished")
            try ctx.expect(places.count == 0, "ran off the executor in \(places.all.joined(separator: ", "))")
        },
        Rule(
            .exe9, "a virtual executor runs nothing until driven, then every ready job in order, on the driving thread",
            requires: .virtualTime,
            rationale:
                """
                Deterministic tests of actors and tasks need jobs to run exactly when the test says: one that runs \
                eagerly brings back the races virtual time exists to remove.
                """,
            hint:
                """
                `enqueue` only records the job; the drive runs jobs on the calling thread, in enqueue order, \
                including jobs enqueued while it runs. An executor that runs them on a thread of its own, all done \
                before the drive returns, declares `.drivenJobs(.onItsOwnThread)`.
                """
        ) { ctx throws(RuleFailure) in
            let session = ExecutorSession(ctx)
            // A task executor also gets a job enqueued from inside a job, which the same drive must run.
            let nested = session.executor.task
            let expected = nested == nil ? [0, 1, 2] : [0, 1, 2, 3]
            let order = Recorder<Int>()
            let driver = ThreadProbe.id
            let elsewhere = Box(false)
            for index in 0..<3 {
                session.submit {
                    if ThreadProbe.id != driver { elsewhere.value = true }
                    order.record(index)
                    if index == 0, let nested { Task(executorPreference: nested) { order.record(3) } }
                }
            }
            try ctx.expect(order.count == 0, "\(order.count) jobs ran before the executor was driven")
            session.executor.drive!()
            try ctx.expect(order.all == expected, "one drive ran \(order.all), expected \(expected)")
            if ctx.subject.declared.drivenJobs == .onItsOwnThread {
                // Where they ran is the executor's own business; that they ran, in order,
                // within the drive, was checked above.
                return
            }
            try ctx.expect(
                !elsewhere.value,
                """
                jobs ran on a thread other than the driving one (an executor that runs a drive's jobs on a thread of \
                its own, all done before the drive returns, declares \(Declaration.drivenJobs(.onItsOwnThread)))
                """
            )
        },
    ]
}
