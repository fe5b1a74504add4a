import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

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
        // larger sizes takes in preemptions the smallest escape, and would fit a linear queue
        // as superlinear. `stress run` gives every run a worker process of its own, so the
        // process's time is the run's.
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
                """
                \(done.count) of \(size) actions (queued while the worker was held) did not run, none of them in \
                \(ctx.mustHappen)
                """
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
