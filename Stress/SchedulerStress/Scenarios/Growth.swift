import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// How the cost of an action grows with the work queued at once, n = 10³ … 10⁶, and the
    /// exponent of a power law fitted to it.
    public static let growth = StressScenario(
        .growth,
        "How an action's cost grows with the work queued at once, n = 10³ … 10⁶. Virtual-time subjects: n actions at distinct future times (scheduled out of time order), then one advance past them all. Trampoline subjects: one action schedules n nested ones, which queue until it returns. Both are timed by the measuring thread's processor time when the last action ran on that thread (time the thread spent preempted is not the subject's), else by the wall clock. Any other scheduler: producer threads fan n actions in between them, timed by the processor time all the worker's threads spent from the first schedule to the last run (a busy machine's preemptions stretch the wall clock, not the work). The exponent k of time ∝ nᵏ is fitted over the sizes measured (sizes half a decade apart; from the third on, a size whose round is predicted, by processor time or wall clock, to outlast both the budget left and 3 s, or ten budgets when that is less, is not started): over 1.1 grows like n log n or a cache's worth, over 1.3 is superlinear (an array re-sorted on every insert, say). A fan-in fitted from rounds in which the kernel preempted the process is measured again without contention (the same sizes queued by one thread behind an action holding the worker, then drained alone), and judged by that exponent: a preempted lock holder makes its waiters spin, which costs processor time that grows with a round's length, not with what is queued, and a preempted small size flattens the fit as much.",
        outcomes: GrowthOutcome.self
    ) { ctx throws(StressFailure) in
        let capabilities = ctx.subject.capabilities
        let workload: GrowthCurve.Workload =
            capabilities.contains(.virtualTime) ? .drain : capabilities.contains(.trampoline) ? .nested : .fanIn
        var measured: [GrowthCurve.Point] = []
        for size in GrowthCurve.sizes {
            // The second size is always measured: a fit needs two, and it is only about
            // three times the first (a quadratic subject's 10⁴ would be a hundred times 10³).
            // From the longer of the last size's two times: a busy machine stretches a round's
            // wall clock past its processor time, and a fan-in's threads spend processor time
            // faster than the wall clock runs (the quiet fit, from the first sizes, falls short).
            if measured.count >= 2, let last = measured.last {
                let exponent = GrowthCurve.exponent(measured.map { ($0.size, $0.seconds) }) ?? 1
                let predicted =
                    max(last.seconds, last.wallSeconds) * pow(Double(size) / Double(last.size), max(exponent, 1))
                let left = (ctx.duration - (ContinuousClock.now - ctx.started)).timeInterval
                if predicted > max(left, min(GrowthCurve.sizeBound, ctx.duration.timeInterval * 10)) { break }
            }
            var rounds: [GrowthCurve.Point] = []
            // A slow subject's small sizes already take long: half a second of rounds is enough.
            while rounds.count < GrowthCurve.rounds(size), rounds.map(\.wallSeconds).reduce(0, +) < 0.5 {
                rounds.append(try workload.measure(size, ctx))
                ctx.addOperations(size)
            }
            measured.append(GrowthCurve.median(rounds))
        }
        var curve = GrowthCurve(
            workload: workload, sizes: measured.map(\.size),
            nanosecondsPerAction: measured.map { $0.seconds * 1e9 / Double($0.size) },
            exponent: GrowthCurve.exponent(measured.map { ($0.size, $0.seconds) }))
        guard let exponent = curve.exponent else {
            ctx.setGrowth(curve)
            throw StressFailure(
                "only \(measured.count) size(s) could be measured within the budget: no exponent to fit")
        }
        // A fan-in's processor time includes what its threads spent contending, and on a
        // machine that takes cores away, a preempted lock holder makes every waiter spin
        // (Swift's `Mutex` spins before it blocks): the larger sizes, whose rounds last long
        // enough to be preempted, cost more per action although the subject does no more
        // work. It errs the other way as well: a loaded make test fitted the array-FIFO
        // mutant at 0.60 over 10³ to 31,623, its smallest sizes the dearest per action. So a
        // fit from rounds the machine preempted is measured again without the contention, the
        // same sizes queued by one thread while the scheduler's worker is held, then drained
        // alone, and the verdict follows that measurement.
        var judged = exponent
        if workload == .fanIn, capabilities.contains(.asynchronous), measured.contains(where: { $0.preempted }) {
            // Over a decade at least: a loaded fan-in may reach only 10³ and 3,162, over which
            // an array FIFO's shifts in a debug build grow the held drain by 1.2-1.3 (CI called
            // one fitted at 3.08 linear so), and a held drain of 10⁴ takes milliseconds.
            let heldSizes = GrowthCurve.sizes.filter { $0 <= max(measured.last?.size ?? 0, GrowthCurve.heldSpan) }
            var held: [GrowthCurve.Point] = []
            for size in heldSizes {
                var rounds: [GrowthCurve.Point] = []
                for _ in 0..<GrowthCurve.rounds(size) { rounds.append(try GrowthCurve.Workload.measureHeld(size, ctx)) }
                held.append(GrowthCurve.median(rounds))
            }
            curve.heldExponent = GrowthCurve.exponent(held.map { ($0.size, $0.seconds) })
            judged = curve.heldExponent ?? exponent
        }
        ctx.setGrowth(curve)
        ctx.setMetric(.growthExponent, judged)
        ctx.record(
            judged > GrowthCurve.superlinear
                ? GrowthOutcome.superlinear
                : judged > GrowthCurve.linear ? GrowthOutcome.logFactor : GrowthOutcome.linear)
    }
}

extension GrowthCurve {
    /// The sizes tried, in order, while the next is predicted to fit in the budget: half a
    /// decade apart, so that a slow subject still gets a few.
    static let sizes = [1_000, 3_162, 10_000, 31_623, 100_000, 316_228, 1_000_000]
    /// A size predicted to take longer than this (and than the budget left, and ten budgets)
    /// is not started: a quadratic subject's 10⁶ would take hours.
    static let sizeBound = 3.0
    /// The largest size a held drain measures however few sizes the fan-in reached.
    static let heldSpan = 10_000
    /// One round of a size: the time it is judged by (see ``Workload``) and its wall clock,
    /// which decides whether a larger size still fits in the budget.
    struct Point {
        var size: Int
        var seconds: Double
        var wallSeconds: Double
        /// Whether the kernel took a core from one of the process's threads during the round.
        var preempted = false
    }

    /// The round of median time among `rounds` (at least one): what a size is judged by.
    static func median(_ rounds: [Point]) -> Point {
        rounds.sorted { $0.seconds < $1.seconds }[rounds.count / 2]
    }

    /// Rounds per size: a thousand actions take well under a millisecond, so small sizes are
    /// measured more often and their median taken.
    static func rounds(_ size: Int) -> Int {
        switch size {
        case ...1_000: 15
        case ...10_000: 5
        case ...100_000: 3
        default: 1
        }
    }
}

extension GrowthCurve.Workload {
    /// One round of `size` actions, timed; throws, after recording them, when actions were
    /// lost: none of those left ran for `mustHappen` (a slow subject is slow, not lossy).
    func measure(_ size: Int, _ ctx: StressContext) throws(StressFailure) -> GrowthCurve.Point {
        let remaining = Atomic<Int>(size)
        let finishedAt = Atomic<UInt64>(0)
        // The measuring thread's processor time when the last action ran on it, 0 when it ran
        // elsewhere. A drain or a trampoline's queue is that thread's own work: on a busy
        // machine its processor time leaves out what preemption added to the wall clock, and
        // a quadratic queue's fit no longer flattens when the smallest size was preempted.
        let measuringThread = pthread_self()
        let finishedOnThread = Atomic<UInt64>(0)
        // A fan-in's work is spread over the producers and the scheduler's threads, so it is
        // timed by the whole process's processor time: on a busy machine the wall clock of the
        // larger sizes took in preemptions the smallest escaped, and CI's loaded run fitted the
        // reference queue at over 1.3. `stress run` gives every run a worker process of its own,
        // so the process's time is the run's.
        let finishedInProcess = Atomic<UInt64>(0)
        let fanIn = self == .fanIn
        // Every action ticks it, after the last one's times are stored.
        let done = Countdown(size)
        let action: SchedulerAction = {
            defer { done.tick() }
            if remaining.wrappingSubtract(1, ordering: .relaxed).newValue == 0 {
                if fanIn {
                    finishedInProcess.store(ThreadTime.processNanoseconds(), ordering: .relaxed)
                } else if pthread_equal(pthread_self(), measuringThread) != 0 {
                    finishedOnThread.store(ThreadTime.processorNanoseconds(), ordering: .relaxed)
                }
                finishedAt.store(StressContext.nanoseconds(), ordering: .relaxed)
            }
        }
        let startedAt: UInt64
        let preemptedBefore = ThreadTime.processPreemptions()
        let startedOnThread = ThreadTime.processorNanoseconds()
        let wallStart = StressContext.nanoseconds()
        switch self {
        case .drain:
            guard let scheduler = ctx.subject.makeScheduler() as? any VirtualTimeScheduler else {
                throw StressFailure("a subject claiming virtualTime made a scheduler that cannot advance")
            }
            let base = scheduler.now
            startedAt = StressContext.nanoseconds()
            // Out of time order, as a test's timers are: 7919 is prime, so i × 7919 mod n
            // visits every offset once.
            for index in 0..<size {
                let offset = index &* 7_919 % size + 1
                _ = try? scheduler.schedule(at: (try? base.advanced(by: .nanoseconds(offset))) ?? base, action)
            }
            scheduler.advance(to: (try? base.advanced(by: .nanoseconds(size))) ?? .distantFuture)
        case .nested:
            let scheduler = ctx.subject.makeScheduler()
            startedAt = StressContext.nanoseconds()
            scheduler.schedule {
                for _ in 0..<size { scheduler.schedule(action) }
            }
        case .fanIn:
            let scheduler = ctx.subject.makeScheduler()
            let producers = ctx.subject.capabilities.contains(.threadConfined) ? 1 : ctx.threads
            // The first producer to start sets it; the others find it set.
            let firstSchedule = Atomic<UInt64>(0)
            let produce: @Sendable (Int) -> Void = { index in
                _ = firstSchedule.compareExchange(
                    expected: 0, desired: ThreadTime.processNanoseconds(), ordering: .relaxed)
                for _ in 0..<(size / producers + (index < size % producers ? 1 : 0)) { scheduler.schedule(action) }
            }
            if producers == 1 { produce(0) } else { try ctx.onThreads(producers, produce) }
            (scheduler as? any VirtualTimeScheduler)?.stepAll()
            startedAt = firstSchedule.load(ordering: .relaxed)
        }
        // A quadratic backlog on a loaded machine drains for longer than `mustHappen`.
        guard done.wait(whileFalling: ctx.mustHappen) else {
            let lost = done.count
            ctx.record(GrowthOutcome.lost, count: lost)
            throw StressFailure(
                "\(lost) of \(size) actions (\(rawValue)) did not run, none of them in \(ctx.mustHappen)")
        }
        let finished = finishedAt.load(ordering: .relaxed)
        let wall = Double(finished &- wallStart) / 1e9
        let preempted = ThreadTime.processPreemptions() != preemptedBefore
        func point(_ nanoseconds: UInt64) -> GrowthCurve.Point {
            GrowthCurve.Point(size: size, seconds: Double(nanoseconds) / 1e9, wallSeconds: wall, preempted: preempted)
        }
        if fanIn { return point(finishedInProcess.load(ordering: .relaxed) &- startedAt) }
        if case let onThread = finishedOnThread.load(ordering: .relaxed), onThread != 0 {
            return point(onThread &- startedOnThread)
        }
        return point(finished &- startedAt)
    }
}

extension GrowthCurve.Workload {
    /// One round of `size` actions scheduled by the calling thread while the scheduler's
    /// worker runs an action that holds it, then released and drained, with no thread
    /// contending for the queue. Timed by the processor time of the two threads that did the
    /// work, the scheduling thread's over its calls and the worker's from the hold's release
    /// to the last action (other threads of the process, a test run's among them, are not
    /// the subject's), or by the whole process's when the drain ran on more than one thread.
    /// The hold is bounded by `mustHappen`, so a scheduler whose `schedule` waits for room
    /// cannot deadlock it.
    static func measureHeld(_ size: Int, _ ctx: StressContext) throws(StressFailure) -> GrowthCurve.Point {
        let scheduler = ctx.subject.makeScheduler()
        let holding = Signal()
        let release = Signal()
        let remaining = Atomic<Int>(size)
        let done = Countdown(size)
        // The drain's thread and its processor time as the hold ends and as the last action
        // runs; the process's time at the last action, for a drain spread over threads.
        let drainStart = Lock<(thread: pthread_t, nanoseconds: UInt64)?>(nil)
        let drainEnd = Lock<(thread: pthread_t, nanoseconds: UInt64)?>(nil)
        let finished = Atomic<UInt64>(0)
        scheduler.schedule {
            holding.fire()
            _ = release.wait(ctx.mustHappen)
            drainStart.withLock { $0 = (pthread_self(), ThreadTime.processorNanoseconds()) }
        }
        _ = holding.wait(ctx.mustHappen)
        let wallStart = StressContext.nanoseconds()
        let started = ThreadTime.processNanoseconds()
        let producing = ThreadTime.processorNanoseconds()
        for _ in 0..<size {
            scheduler.schedule {
                if remaining.wrappingSubtract(1, ordering: .relaxed).newValue == 0 {
                    drainEnd.withLock { $0 = (pthread_self(), ThreadTime.processorNanoseconds()) }
                    finished.store(ThreadTime.processNanoseconds(), ordering: .relaxed)
                }
                done.tick()
            }
        }
        let produced = ThreadTime.processorNanoseconds() &- producing
        release.fire()
        guard done.wait(whileFalling: ctx.mustHappen) else {
            ctx.record(GrowthOutcome.lost, count: done.count)
            throw StressFailure(
                "\(done.count) of \(size) actions (queued while the worker was held) did not run, none of them in \(ctx.mustHappen)"
            )
        }
        let wall = Double(StressContext.nanoseconds() &- wallStart) / 1e9
        var nanoseconds = finished.load(ordering: .relaxed) &- started
        if let start = drainStart.withLock({ $0 }), let end = drainEnd.withLock({ $0 }),
            pthread_equal(start.thread, end.thread) != 0
        {
            nanoseconds = produced &+ (end.nanoseconds &- start.nanoseconds)
        }
        return GrowthCurve.Point(size: size, seconds: Double(nanoseconds) / 1e9, wallSeconds: wall)
    }
}

/// Processor-time clocks, which stand still while a thread waits or is preempted.
enum ThreadTime {
    /// How many times the kernel took a core from one of this process's threads while it
    /// could still run (involuntary context switches, summed over the threads).
    static func processPreemptions() -> Int {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage.ru_nivcsw
    }

    /// Nanoseconds of processor time this thread has used: it stands still while the thread
    /// waits or is preempted.
    static func processorNanoseconds() -> UInt64 { nanoseconds(CLOCK_THREAD_CPUTIME_ID) }

    /// Nanoseconds of processor time all this process's threads have used.
    static func processNanoseconds() -> UInt64 { nanoseconds(CLOCK_PROCESS_CPUTIME_ID) }

    private static func nanoseconds(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}

/// What a run of `growth` observes; the raw values are the names reports use.
public enum GrowthOutcome: String, StressOutcome {
    case linear
    case logFactor = "log-factor"
    case superlinear, lost

    public var judgement: StressScenario.Judgement {
        switch self {
        case .linear: .acceptable("the cost per action does not grow with the work queued (exponent ≤ 1.1)")
        case .logFactor:
            .interesting("the cost per action grows like log n or with the cache's reach (exponent 1.1–1.3)")
        case .superlinear:
            .forbidden(
                "the work grows faster than n log n (exponent over 1.3): an action costs more the more are queued")
        case .lost: .forbidden("an action never ran")
        }
    }
}
