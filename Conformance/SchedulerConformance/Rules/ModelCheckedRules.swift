import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let modelChecked: [Rule] = [
        Rule(
            .lin1,
            """
            Schedules (now, after a delay, at a time, repeating), recursions and their reschedules, disposals and \
            declared extra calls made from several threads at once give outcomes some one-at-a-time order of the same \
            calls explains
            """,
            requires: [.asynchronous, .serial], excludes: [.virtualTime, .threadConfined],
            rationale:
                """
                Users call a scheduler from many threads: one schedules while another disposes a handle, or flushes. \
                Each call must take effect at one moment between its start and its return, so what the actions saw \
                (which ran, in what order, one at a time, as the current scheduler) is what some sequential order of \
                the calls gives. Timed work is judged where it meets the rest: one at a time with it, as the current \
                scheduler, never before its deadline, never once disposed, and what it schedules behind the work \
                already waiting. Rules written for imagined situations cannot list every such race; generated \
                scenarios checked against a model can.
                """,
            hint:
                """
                Replay the printed seed with `conformance replay`. Look for a call that takes effect in two steps \
                without a lock between them: a handle disposed while the queue's worker decides, a flag read and \
                written without one atomic operation, a lane released early.
                """,
            needsIdleCores: true
        ) { context throws(RuleFailure) in
            let capabilities = context.subject.capabilities
            let cancellation = capabilities.contains(.cancellation)
            let extras = context.subject.scenarioOperations
            // Two thirds of the meetings of two calls: its mutants fall inside the first half
            // second (the budget), and the last hundred of each kind cost a serial subject 0.4 s
            // of its 5. All the meetings of a call and an action's return: a dispose that meets
            // its target's start on a quiet machine is a rarer draw (with two thirds,
            // dispose-while-starting-frees-lane escaped 2-3 runs in 100; with all, none in 200).
            var exploration = context.exploration
            exploration.meetings = exploration.meetings * 2 / 3
            exploration.returnMeetings = context.exploration.meetings
            try ScenarioExplorer.explore(
                .lin1, profile: "serial scheduler", context: context,
                generate: {
                    SchedulerScenarios.generate(
                        &$0, cancellation: cancellation, extras: extras, timers: capabilities.contains(.timers),
                        repeating: capabilities.contains(.repeating))
                },
                aim: SchedulerScenarios.aim, exploration: exploration,
                instance: { jitter throws(RuleFailure) in SchedulerScenarios.instance(context, jitter: jitter) })
        },
        Rule(
            .lin2,
            """
            Driving virtual time from one thread, or from two at once, while others schedule, start and reschedule \
            recursions, dispose and read `now` gives outcomes some one-at-a-time order of the same calls explains
            """,
            requires: [.virtualTime], excludes: [.threadConfined],
            rationale:
                """
                A test advances virtual time while the code under test schedules and cancels work from its own \
                threads, and a test's helpers may drive it from theirs. Each call must take effect at one moment; an \
                advance is a sequence of such moments (one per action it runs), and two drives do not mix their work, \
                so what ran, when in virtual time, and what `now` said, must be what some sequential order of the \
                calls gives. A scheduler that must only be driven from one thread at a time declares \
                `.drivenFrom(.oneThread)`, and is then driven from one.
                """,
            hint:
                """
                Replay the printed seed with `conformance replay`. Look for an advance that reads its queue or its \
                time in one critical section and acts on it in another, a `now` written in two steps, or (with two \
                drivers) actions of two drives that overlap or interleave.
                """,
            needsIdleCores: true
        ) { context throws(RuleFailure) in
            let capabilities = context.subject.capabilities
            try ScenarioExplorer.explore(
                .lin2, profile: "virtual-time scheduler", context: context,
                generate: {
                    VirtualTimeScenarios.generate(
                        &$0, capabilities: capabilities, drivenFrom: context.subject.declared.drivenFrom)
                },
                aim: VirtualTimeScenarios.aim,
                explanation: { scenario in
                    scenario.twoDriversExplanation(.lin2) { if case .drive = $0 { true } else { false } }
                },
                instance: { jitter throws(RuleFailure) in try VirtualTimeScenarios.instance(context, jitter: jitter) })
        },
        Rule(
            .lin3,
            """
            Advancing a manual clock from one thread, or from two at once, while others start sleepers, cancel them \
            and read `now` gives outcomes some one-at-a-time order of the same calls explains
            """,
            requires: [.virtualTime],
            rationale:
                """
                A test advances its clock while the code under test goes to sleep on it and cancels sleeps from its \
                own tasks. Each sleep takes its deadline at one moment; an advance resumes everything due by its \
                target, sleepers that arrived meanwhile included. A sleeper lost between an advance's look at its \
                list and its move of the time sleeps past its deadline, and the test hangs or times out for no reason \
                it can see. Two drives at once do not mix: each advances from the time it finds when its turn comes. \
                A clock that must only be driven from one thread at a time declares `.drivenFrom(.oneThread)`.
                """,
            hint:
                """
                Replay the printed seed with `conformance replay`. Look for a sleep that compares its deadline with \
                `now` in one critical section and registers in another, an advance that collects the due sleepers in \
                one critical section and moves the time in another, or a cancellation that removes a sleeper its \
                advance already took. A clock that parks `sleep(until: now)` until its next advance by design \
                declares `.dueSleep(.parksUntilNextAdvance)`.
                """,
            needsIdleCores: true, kind: .clock
        ) { context throws(RuleFailure) in
            // Sleepers that run inside the clock's advance meet it there: the races are then
            // between calls. Sleepers that run elsewhere also race the advance themselves.
            let clock = context.subject.makeClock()
            let inside = clock.sleeperExecutor != nil
            let run = clock.hasRun
            try ScenarioExplorer.explore(
                .lin3, profile: "manual clock", context: context,
                generate: {
                    ManualClockScenarios.generate(&$0, run: run, drivenFrom: context.subject.declared.drivenFrom)
                },
                aim: ManualClockScenarios.aim, evidence: inside ? [.calls] : [.calls, .callAndReturn, .passing],
                pointsOfTheSetUp: inside, resumptionsMeet: !inside,
                // Two drives at once are a race of their own: each pair of them must meet.
                pairing: { if case .drive(let target) = $0 { target == .all ? "run()" : "advance" } else { nil } },
                explanation: { scenario in
                    scenario.twoDriversExplanation(.lin3) { if case .drive = $0 { true } else { false } }
                },
                instance: { jitter throws(RuleFailure) in ManualClockScenarios.instance(context, jitter: jitter) })
        },
        Rule(
            .lin4,
            """
            Jobs enqueued on a serial executor from several threads and from inside its jobs, while others ask it \
            about isolation, give outcomes some one-at-a-time order of the same calls explains
            """,
            requires: [.serial], excludes: [.threadConfined],
            rationale:
                """
                An actor's executor is entered from every thread that awaits the actor, and from its own jobs. Each \
                enqueue must take effect at one moment, and the jobs must then run one at a time in that order, each \
                isolated, none left behind: a job stranded by a lost wake-up is a task that never resumes, one run \
                beside another is the data race the actor was there to prevent.
                """,
            hint:
                """
                Replay the printed seed with `conformance replay`. Look for a drain that finds its queue empty and \
                goes idle in two steps, an enqueue that reads the idle flag outside the lock that guards the queue, \
                or jobs enqueued from inside a job kept aside until it returns.
                """,
            needsIdleCores: true, kind: .executor
        ) { context throws(RuleFailure) in
            let virtual = context.subject.makeExecutor().drive != nil
            // A real executor's narrowest race is an enqueue landing as a drain goes idle after
            // a job returned, a window of a microsecond or so: twice the meetings.
            var exploration = context.exploration
            if !virtual { exploration.meetings *= 2 }
            try ScenarioExplorer.explore(
                .lin4, profile: "serial executor", context: context,
                generate: { ExecutorScenarios.generate(&$0, virtual: virtual) },
                aim: ExecutorScenarios.aim, evidence: virtual ? [.calls] : [.calls, .callAndReturn],
                exploration: exploration,
                instance: { jitter throws(RuleFailure) in ExecutorScenarios.instance(context, jitter: jitter) })
        },
        Rule(
            .lin5,
            """
            This package's composite, serial and action disposables, added to, replaced, removed and disposed from \
            several threads at once, give outcomes some one-at-a-time order of the same calls explains
            """,
            requires: [.cancellation],
            rationale:
                """
                Cancellation is composed: a subscription keeps its handles in a composite disposed as one, a \
                recursive or repeating schedule swaps its current handle in a serial one, and the users of every \
                scheduler hold them from every thread. A member added as its composite is disposed must be disposed \
                by one of the two calls; a handle replaced as its serial disposable is disposed must not be left \
                running; an action disposable disposed from two threads runs its action once.
                """,
            hint:
                """
                Replay the printed seed with `conformance replay --rule LIN-5`. Look for a dispose that takes the \
                members and marks itself disposed in two critical sections, an add that reads `disposed` outside the \
                lock that stores the member, a remove that finds its member by a stale index, or a replace that \
                disposes the old handle before it stores the new one.
                """,
            guarantee:
                """
                It checks this package's own CompositeDisposable, SerialDisposable and ActionDisposable, which the \
                users of every subject may hold: no subject changes them, so a pass is the library's (and a failure \
                is the library's too).
                """,
            needsIdleCores: true, judgesOnlyThePackage: true
        ) { context throws(RuleFailure) in
            // Composite and serial each explore for two fifths of the budget (the same 0.6 s and
            // 150 meetings in which the package's tests refute four adversaries of each), the
            // action disposable for the rest; every other serial instance starts holding one.
            func explore(
                _ profile: String, share: Double, meetingShare: Int = 2,
                generate: (inout SplitMix64) -> Scenario<DisposableOperation>,
                instance: () -> ScenarioInstance<DisposableModel>
            ) throws(RuleFailure) {
                var exploration = context.exploration
                exploration.budget = exploration.budget * share
                exploration.meetings = max(1, exploration.meetings / meetingShare)
                try ScenarioExplorer.explore(
                    .lin5, profile: profile, context: context, generate: generate, aim: DisposableScenarios.aim,
                    evidence: [.calls], pairing: DisposableScenarios.kind, exploration: exploration,
                    instance: { _ in instance() })
            }
            try explore(
                "composite disposable", share: 0.4, generate: { DisposableScenarios.generate(&$0, serial: false) }
            ) {
                DisposableScenarios.compositeInstance { CompositeDisposable() }
            }
            var made = 0
            try explore("serial disposable", share: 0.4, generate: { DisposableScenarios.generate(&$0, serial: true) })
            {
                made += 1
                return DisposableScenarios.serialInstance(holdingFirst: made % 2 == 0) { SerialDisposable($0) }
            }
            try explore(
                "action disposable", share: 0.2, meetingShare: 4,
                generate: { DisposableScenarios.generateDisposeOnly(&$0) }
            ) {
                DisposableScenarios.actionInstance { ActionDisposable($0) }
            }
        },
        Rule(
            .lin6,
            """
            One thread's programs of schedules, recursions, late reschedules and disposals, made at the top and from \
            inside actions, give the events the immediate, trampoline or subscription model gives
            """,
            anyOf: [.synchronous, .trampoline, .subscription], excludes: .virtualTime,
            rationale:
                """
                Code on the immediate, trampoline and subscription schedulers nests: actions schedule actions, \
                recursions reschedule from inside their runs and after them, and disposals come from anywhere in the \
                chain. Which runs at once, which waits its turn, in what order, as which current scheduler, and what a \
                disposal stops is fixed for one thread (for the subscription scheduler, once the work it queues waits \
                for the program's end), so generated programs of every call are judged against a model of it event \
                by event.
                """,
            hint:
                """
                Replay the printed seed with `conformance replay --rule LIN-6`. Look for work queued from inside an \
                action run outside the current-scheduler scope, a reschedule made in a run queued ahead of what the \
                run queued, a late reschedule dropped while the thread is busy, a disposal checked for a whole batch \
                instead of as each entry is taken, or a subscription scheduler that runs inline only so deep, or \
                sends work to its background while its caller has a current scheduler.
                """
        ) { context throws(RuleFailure) in try OneThreadPrograms.explore(context) },
        Rule(
            .lin7,
            """
            One thread's programs of every call of a virtual-time scheduler (present, past, equal and far deadlines, \
            repeating work, recursions, disposals, `now`, every driving call), made at the top and from inside \
            actions, ticks and runs, give the events the model gives
            """,
            requires: [.virtualTime],
            rationale:
                """
                A test drives virtual time through every door at once: actions schedule for the present and for \
                deadlines already past, ticks schedule work and dispose their own series, recursions reschedule, and \
                the test advances, steps and reads `now` between them. On one thread all of it is fixed by the \
                semantics, so generated programs of every call are judged against a model of it event by event: \
                which runs, at what time, in what order, as which current scheduler, and what `now` says after each \
                call.
                """,
            hint:
                """
                Replay the printed seed with `conformance replay --rule LIN-7`. Look for a past deadline queued with \
                its own time instead of the present's, a tick's next deadline counted from where it ran rather than \
                from the grid, a disposal made inside a tick that misses the tick already queued, or an advance that \
                stops at the first work it did not expect.
                """
        ) { context throws(RuleFailure) in try VirtualPrograms.explore(context) },
    ]
}
