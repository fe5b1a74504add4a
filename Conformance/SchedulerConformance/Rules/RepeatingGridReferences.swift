import Dispatch
import SchedulerProbes
import Schedulers

/// One period of a repeating timer, as a fixed delay judges it: when tick k's action ended,
/// the latest of the suite's timers armed for the period, and when tick k + 1 came.
struct Period {
    let end: UInt64
    let latest: UInt64
    let next: UInt64

    /// The earliest a fixed-delay tick k + 1 may come: an interval after the action returned.
    func due(_ step: UInt64) -> UInt64 { end + step }
}

/// The suite's evidence of what the machine let a fixed-delay timer do in each period, taken
/// at the same moment as the subject's timer rather than at grid points apart from it.
///
/// From the end of tick k's action the suite hands the subject a plain action. On a serial
/// subject that runs once the subject is done with tick k, its re-arm included, so a thread
/// preempted between the action's return and the re-arm delays it too. There the suite arms
/// two one-shot Dispatch timers an interval ahead (zero leeway, and the subject's leeway) on
/// queues of their own, the first handing the subject another plain action: the latest of the
/// three (the plain action's wait for the subject's own tick left out) is when a correct
/// fixed-delay tick k + 1 could have run. The grid's references, read at grid points apart
/// from the period, say nothing of the noise within it.
final class PeriodReferences: Sendable {
    private let interval: Duration
    private let leeway: Duration
    private let scheduler: any Scheduler
    private let armed = Lock<[Int: (zero: ReferenceTimer, alike: ReferenceTimer)]>([:])
    private let zeroQueue = DispatchQueue(label: "repeating-grid period reference")
    private let alikeQueue = DispatchQueue(label: "repeating-grid period reference with leeway")

    init(interval: Duration, leeway: Duration, scheduler: any Scheduler) {
        self.interval = interval
        self.leeway = leeway
        self.scheduler = scheduler
    }

    /// Arms period k's timers, an interval from now.
    func arm(after k: Int) {
        let deadline = uptimeNanoseconds() + UInt64(interval.nanoseconds)
        let scheduler = self.scheduler
        let zero = ReferenceTimer(first: deadline, interval: nil, leeway: .zero, until: deadline, on: zeroQueue) {
            hop in
            _ = scheduler.schedule(hop)
        }
        let alike = ReferenceTimer(
            first: deadline, interval: nil, leeway: leeway, until: deadline, on: alikeQueue, hop: nil)
        armed.withLock { $0[k] = (zero, alike) }
    }

    /// When period k's timers fired (the later of the two), when the first handed the subject
    /// its plain action and when that ran, once all three did; nil when they were not armed or
    /// did not run within `bound`.
    func times(after k: Int, within bound: Duration) -> (fired: UInt64, handedAt: UInt64, hopRan: UInt64)? {
        let deadline = ContinuousClock.now + bound
        func left() -> Duration { max(.zero, deadline - .now) }
        guard let (zero, alike) = armed.withLock({ $0[k] }), zero.done.wait(left()), alike.done.wait(left()),
            spinWait(upTo: left(), until: { !zero.hops.isEmpty }),
            let handedAt = zero.times.first, let alikeAt = alike.times.first, let hopRan = zero.hops.first
        else { return nil }
        return (max(handedAt, alikeAt), handedAt, hopRan)
    }

    func cancel() {
        for (zero, alike) in armed.withLock({ $0.values }) {
            zero.cancel()
            alike.cancel()
        }
    }
}

/// The suite's own timer: a Dispatch timer with the given leeway on a queue of its own,
/// repeating on the grid (or once, with no `interval`), recording when each of its ticks ran
/// and, with a `hop`, when the plain action each tick handed to the subject ran.
final class ReferenceTimer: Sendable {
    // nonisolated(unsafe): Dispatch sources are thread-safe, but not marked Sendable.
    nonisolated(unsafe) private let source: any DispatchSourceTimer
    private let recorded = Box<[UInt64]>([])
    private let hopped = Box<[UInt64]>([])
    /// Signalled once for each plain action handed to the subject that has run.
    private let hopRan = DispatchSemaphore(value: 0)
    /// Fires once a tick ran at or after the last grid point.
    let done = Signal()

    init(
        first: UInt64, interval: Duration?, leeway: Duration, until last: UInt64,
        on queue: DispatchQueue = DispatchQueue(label: "repeating-grid reference"), waits: CoreWaits? = nil,
        snapshots: Bool = false, hop: (@Sendable (@escaping SchedulerAction) -> Void)?
    ) {
        // Not `.strict`: a strict timer sits in Dispatch's critical timer class, which kept
        // time in a loaded test process while the ordinary class, the subject's, was 265 ms
        // late; the ordinary class sees what the subject's timer sees.
        source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(
            deadline: DispatchTime(uptimeNanoseconds: first),
            repeating: interval.map { .nanoseconds(Int($0.nanoseconds)) } ?? .never,
            leeway: .nanoseconds(Int(leeway.nanoseconds)))
        source.setEventHandler { [recorded, hopped, hopRan, done, waits] in
            let at = uptimeNanoseconds()
            recorded.update { $0.append(at) }
            hop? {
                let ran = uptimeNanoseconds()
                hopped.update { $0.append(ran) }
                waits?.record(at: ran, onSubject: true)
                hopRan.signal()
            }
            waits?.record(at: uptimeNanoseconds())
            if snapshots { waits?.snapshot(fired: at) }
            if at >= last, !done.hasFired { done.fire() }
        }
        source.resume()
    }

    var times: [UInt64] { recorded.value }
    var hops: [UInt64] { hopped.value.sorted() }

    func cancel() { source.cancel() }

    /// Waits until every plain action handed to the subject so far has run, or `bound` passed.
    func waitForHops(within bound: Duration) {
        let deadline = DispatchTime.now() + .nanoseconds(Int(bound.nanoseconds))
        for _ in recorded.value {
            if hopRan.wait(timeout: deadline) == .timedOut { return }
        }
    }
}

/// The suite's uptime clock, the one Dispatch timers are armed on.
func uptimeNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Nanoseconds as milliseconds with one decimal, for messages.
func milliseconds(_ nanoseconds: UInt64) -> String {
    "\(Double(nanoseconds / 100_000) / 10) ms"
}

extension Duration {
    /// Whole nanoseconds (saturating), for the suite's own timer arithmetic.
    var nanoseconds: Int64 { (try? checkedNanoseconds()) ?? .max }
}

extension RepeatingGrid {
    /// When a plain action handed to a serial subject at `handed`, which ran at `ran`, could
    /// first have run: after the ticks' actions (`starts`, `ends`) that had started by the
    /// time it was handed and ended before it ran; at `handed` if there were none.
    /// Never later than `ran` when `handed` is not.
    static func busyUntil(handed: UInt64, ran: UInt64, starts: [UInt64], ends: [UInt64]) -> UInt64 {
        var free = handed
        for (start, end) in zip(starts, ends) where start <= handed && end <= ran { free = max(free, end) }
        return free
    }

    /// The subject's `now`, and the suite's uptime at that moment (bracketed; retried until
    /// the bracket is narrow, so preemption between the readings does not skew the grid).
    static func anchor(_ scheduler: any Scheduler) -> (SchedulerTime, UInt64) {
        var best: (SchedulerTime, UInt64, UInt64)?
        for _ in 0..<20 {
            let before = uptimeNanoseconds()
            let now = scheduler.now
            let after = uptimeNanoseconds()
            if best.map({ after - before < $0.2 }) ?? true { best = (now, after, after - before) }
            if after - before < 100_000 { break }
        }
        return (best!.0, best!.1)
    }
}
