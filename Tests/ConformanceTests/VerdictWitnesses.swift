import Foundation
import SchedulerMutants
import SchedulerProbes
import Schedulers
import Synchronization
import TestSupport
import Testing

@testable import SchedulerConformance

/// A ``ConcurrentQueueScheduler`` one of whose repeating ticks has its thread stopped for
/// 40 ms a few milliseconds into the action, by a signal whose handler sleeps: what a
/// preemption does to the action, on demand. The first tick in `stalledTicks` (counted from
/// 0 over the first timer) tries; while the signal lands outside the action (the signaller
/// held off past it), it stalls nothing and the next one in the range tries again.
final class TickPreempting: TimerWrapping {
    static let stall = Duration.milliseconds(40)
    /// Into the action, so that the stall falls between the times the suite's action reads
    /// as it starts and ends, never before its start (which would make the tick look late).
    static let into = Duration.milliseconds(2)
    let wrapped = ConcurrentQueueScheduler(name: "concurrent, one tick preempted")
    let stalledTicks: Range<Int>
    private let ticks = Atomic<Int>(0)
    private let overran = Atomic<Bool>(false)
    private let signaller = DispatchQueue(label: "tick preempter")

    init(stalledTicks: Range<Int>) {
        self.stalledTicks = stalledTicks
        _ = Self.installHandler
    }

    /// Whether a stalled tick's action took at least the stall: the situation occurred.
    var actionOverran: Bool { overran.load(ordering: .relaxed) }

    /// SIGUSR2 sleeps the thread it is sent to for ``stall`` (nanosleep is async-signal-safe),
    /// if that thread is inside a stalled tick's action; elsewhere it does nothing.
    private static let installHandler: Void = {
        _ = tickActionRunning.load(ordering: .relaxed)
        signal(SIGUSR2) { _ in
            guard tickActionRunning.load(ordering: .relaxed) else { return }
            var pause = timespec(tv_sec: 0, tv_nsec: 40_000_000)
            nanosleep(&pause, nil)
        }
    }()

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        try wrapped.schedule(at: deadline, repeatingEvery: interval, leeway: leeway) { [self] in
            let tick = ticks.add(1, ordering: .relaxed).oldValue
            guard stalledTicks.contains(tick), !actionOverran else { return action() }
            // Dispatch's worker threads block every asynchronous signal: this one is let in
            // (a signal of an earlier try, held pending since, is delivered here and ignored).
            var usr2 = sigset_t()
            var previous = sigset_t()
            sigemptyset(&usr2)
            sigaddset(&usr2, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &usr2, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            let thread = pthread_self()
            let started = ContinuousClock.now
            signaller.asyncAfter(deadline: .now() + Self.into.dispatchInterval) { _ = pthread_kill(thread, SIGUSR2) }
            tickActionRunning.store(true, ordering: .relaxed)
            action()
            tickActionRunning.store(false, ordering: .relaxed)
            if ContinuousClock.now - started >= Self.stall { overran.store(true, ordering: .relaxed) }
        }
    }
}

/// Whether a stalled tick's action is running: read by the signal handler, which can see no
/// instance (ticks of one timer never overlap, so one flag serves).
let tickActionRunning = Atomic<Bool>(false)

/// A repeating timer on threads of its own, anchored to its start, that holds back its fifth
/// tick for 60 ms: by sleeping, or by sharing a core with fifteen spinning threads, so that
/// the thread is ready to run but seldom on a core. Yielding to one spinner instead left the
/// thread running its yields for most of the stall (the kernel's fair scheduler gives a
/// yielding thread its core back at once when one other waits: 3.9 ms of 60 counted as
/// waiting on a quiet machine, 23.9 on a loaded one), and a thread whose priority was lowered
/// cannot raise it again to run the tick.
final class ThreadTicking: TimerWrapping {
    enum Stall { case sleeps, waitsForACore }
    /// Which threads run the ticks: one for all, or each tick one of a pool made with the
    /// timer, which has run nothing before (as a thread pool's may have).
    enum Threads: Sendable, CustomStringConvertible {
        case one, freshPerTick
        var description: String { self == .one ? "one thread" : "a fresh thread per tick" }
    }
    static let stalledTick = 4
    static let stall = Duration.milliseconds(60)
    let wrapped = QueueScheduler(name: "ticks on threads of its own")
    let how: Stall
    let threads: Threads
    // Made with the timer, before the rule reads the time it anchors the grid to: under the
    // sanitizer, making dozens of threads inside `schedule` would make the first tick late.
    private let spinners: Spinners?
    /// Each fresh thread sleeps until its tick is handed to it, spins to the tick's due time
    /// (`due`), runs `work`, and says so.
    private let pool: [DispatchSemaphore]
    private let work = Box<(@Sendable (Int) -> Void)?>(nil)
    private let ran = DispatchSemaphore(value: 0)
    private let due = Box<UInt64>(0)
    /// How long the stalled tick was held back past its due time by anything but its
    /// thread's wait for a core, in nanoseconds: written by the tick, read by the test.
    private let unexplained: Box<Int64>?
    /// How much of a stalled tick's delay may be other than its wait for a core for the run
    /// to show a tick held back by the machine alone, in nanoseconds: well inside TIM-12's own
    /// grace (8 ms).
    static let unexplainedSlack: Int64 = 4_000_000

    init(_ how: Stall, _ threads: Threads = .one, unexplained: Box<Int64>? = nil) {
        self.how = how
        self.threads = threads
        self.unexplained = unexplained
        spinners = how == .waitsForACore ? Spinners(15) : nil
        pool = threads == .freshPerTick ? (0..<32).map { _ in DispatchSemaphore(value: 0) } : []
        for (index, handed) in pool.enumerated() {
            Thread { [work, ran, due] in
                handed.wait()
                Self.spin(to: due.value)
                work.value?(index)
                ran.signal()
            }.start()
        }
    }

    /// Lets the threads not used end.
    deinit {
        for handed in pool { handed.signal() }
        spinners?.release()
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        let handle = BooleanDisposable()
        let (start, step) = (deadline.nanoseconds, UInt64(try interval.checkedNanoseconds()))
        let (spinners, unexplained) = (self.spinners, self.unexplained)
        work.value = { index in
            guard !handle.isDisposed else { return }
            if index == Self.stalledTick {
                let waitedBefore = CoreWait.now()
                Self.holdBack(spinners)
                // From the due time, so a delay before the stall began counts against the run.
                let late = Int64(DispatchTime.now().uptimeNanoseconds) - Int64(start + UInt64(index) * step)
                let waited = waitedBefore.flatMap { CoreWait.now()?.since($0) }.map(Int64.init) ?? 0
                unexplained?.value = max(late - waited, 0)
            }
            if !handle.isDisposed { action() }
        }
        let (pool, work, ran, handedDue) = (self.pool, self.work, self.ran, self.due)
        Thread {
            var index = 0
            while !handle.isDisposed {
                let due = start + UInt64(index) * step
                if index < pool.count {
                    // Handed half an interval early, and the fresh thread spins to the due
                    // time itself: what holds the tick back is then that thread's wait, which
                    // the rule reads. Handed when due, a hand-off this thread was slow to make
                    // (it yields to every ready thread) was no thread's wait the rule could
                    // see.
                    Self.spin(to: due - min(due, step / 2))
                    handedDue.value = due
                    pool[index].signal()
                    ran.wait()
                } else {
                    Self.spin(to: due)
                    work.value?(index)
                }
                index += 1
            }
            // The action holds the scheduler (the rule's actions schedule on it): kept here,
            // it would keep this timer's threads alive after the rule.
            work.value = nil
        }.start()
        return handle
    }

    /// Spins to `due` on the uptime clock, yielding: a sleep wakes late when the host is slow
    /// to deliver its timer, with the thread never kept off a core, and a thread that keeps
    /// yielding is ready to run, so what holds it back is a wait for a core, which the rule
    /// reads.
    private static func spin(to due: UInt64) {
        while DispatchTime.now().uptimeNanoseconds < due { sched_yield() }
    }

    /// Holds the calling thread back for `stall`: on a core full of `spinners`, or asleep.
    private static func holdBack(_ spinners: Spinners?) {
        guard let spinners else { return Thread.sleep(forTimeInterval: stall.timeInterval) }
        spinners.start()
        CorePinning.pinCurrentThread(toCore: 0)
        // Yielding, so each turn it gets is microseconds long: spinning through its turns, it
        // ran 4 to 8 ms of a 60 ms stall beside fifteen spinners, 0.1 ms yielding.
        let end = ContinuousClock.now + stall
        while ContinuousClock.now < end { sched_yield() }
        spinners.stop()
        CorePinning.unpinCurrentThread()
    }
}

/// Threads that wait on the first core until started, then spin there until stopped: made
/// ahead, so that starting them costs the thread they hold back nothing but the wake-ups.
final class Spinners: Sendable {
    private let go = DispatchSemaphore(value: 0)
    private let spinning = Atomic<Bool>(true)
    private let count: Int

    init(_ count: Int) {
        self.count = count
        for _ in 0..<count {
            Thread { [self] in
                CorePinning.pinCurrentThread(toCore: 0)
                go.wait()
                while spinning.load(ordering: .relaxed) {}
            }.start()
        }
    }

    func start() { for _ in 0..<count { go.signal() } }

    func stop() { spinning.store(false, ordering: .relaxed) }

    /// Ends the threads, started or not.
    func release() {
        stop()
        start()
    }
}

/// What each of a test's runs of a rule showed, when none showed the situation it needs.
struct Unjudged: Error, CustomStringConvertible {
    let runs: [String]
    var description: String { runs.enumerated().map { "run \($0.offset + 1): \($0.element)" }.joined(separator: "; ") }
}
