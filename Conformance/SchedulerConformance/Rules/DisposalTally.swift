import Foundation
import SchedulerProbes
import Schedulers

/// CAN-3's verdict over the trials so far: violations, suspects, excused and unjudged late
/// starts, and how many races were exercised.
///
/// A start after a disposal made while the action ahead still ran is a violation outright:
/// the order of events proves it, whatever the timing. A late start after a disposal that
/// raced the pick-up, with no evidence that the worker or the machine was held up, is a
/// *suspect*: the host of a virtual machine also stops one core alone, now and then (about
/// one pause in twenty on the CI machine, 5 to 60 µs); the guest counts about a quarter of
/// such stops as steal, which the worker's `ThreadMark`s read, and nothing counts the rest,
/// so one such start may be that. (Of a spinning thread's gaps over 10 µs there, three in
/// five came with an interrupt of its core, which is evidence; the rest are such stops.)
/// The second suspect is a violation. Suspects count only from rounds in which the suite's
/// own atomic-claim control, put through a trial after each of the subject's, had none: a
/// machine that stops running threads unseen (a test process full of parallel work did, 10
/// to 76 µs, twice in 8,000 trials) gives the control suspects too, and such a round is set
/// aside, not held against the subject. A check-then-run window of a few microseconds gives
/// tens of suspects in every round.
struct DisposalTally {
    /// How much longer than an optimised build's the same steps take: unoptimised code (no
    /// inlining, every retain made) is several times slower over a pick-up, so a machine's
    /// unseen stops land in it more often; the sanitizer's build (unoptimised too) counts its
    /// own slowdown, which already covers that.
    static let slowdown: Double = {
        #if DEBUG
            max(4, ThreadSanitizerBuild.slowdown)
        #else
            ThreadSanitizerBuild.slowdown
        #endif
    }()
    /// How late a start may come on a worker that was not held up: a correct pick-up takes
    /// well under a microsecond, optimised.
    static let grace = Duration.microseconds(5) * slowdown
    /// The shortest gap in the disposing thread's reads of the clock that is a pause of the
    /// machine (its loop takes well under a microsecond).
    static let pause = Duration.microseconds(2) * slowdown
    /// How long the disposing thread watches for the start: later starts are unjudged.
    static let watched = Duration.microseconds(200) * slowdown
    /// How old a reading of the cores' interrupts a trial may compare against, when its pacer
    /// is told to return: a tenth of a 250 Hz timer's tick, so that an unrelated tick seldom
    /// excuses a late start.
    static let baselineAge = Duration.microseconds(400) * slowdown

    /// The index of this tally's first trial in the whole run, for the failure's words.
    let firstIndex: Int
    private(set) var trials = 0
    private(set) var exercised = 0
    private(set) var excused = 0
    private(set) var unjudged = 0
    private(set) var earlyStarts: [(index: Int, trial: DisposalTrial)] = []
    private(set) var suspects: [(index: Int, trial: DisposalTrial, watched: Duration)] = []

    init(firstIndex: Int = 0) { self.firstIndex = firstIndex }

    /// What one trial shows.
    enum Verdict {
        /// Not late, or it never ran.
        case inTime
        /// Started although it was disposed while the action ahead of it still ran.
        case startedAfterEarlyDisposal
        /// Started late on a worker that kept its core, while the machine kept running.
        case lateWithoutPause(watched: Duration)
        /// Late, with evidence the worker or the machine was held up.
        case excused
        /// Late, with no evidence either way.
        case unjudged
    }

    static func verdict(_ trial: DisposalTrial) -> Verdict {
        guard let start = trial.start.value, let returned = trial.returned.value else { return .inTime }
        // A start before the return ran ahead of its pacer: a scheduler with no FIFO (an actor
        // reached by unstructured tasks) may; that is ORD-1's business, not this rule's.
        guard start > returned else { return .inTime }
        if trial.offset < .zero, trial.pacerSawGo.value { return .startedAfterEarlyDisposal }
        if trial.startedInTime { return .inTime }
        switch trial.evidence.value ?? .unknown {
        case .preempted: return .excused
        case .unknown: return .unjudged
        case .notPreempted:
            if trial.workerInterrupted == true { return .excused }
            guard let watch = trial.watch.value, watch.covers(start) else { return .unjudged }
            return watch.longestGap >= pause
                ? .excused : .lateWithoutPause(watched: watch.from.duration(to: watch.until))
        }
    }

    mutating func add(_ trial: DisposalTrial) {
        defer { trials += 1 }
        let verdict = Self.verdict(trial)
        switch verdict {
        case .startedAfterEarlyDisposal: earlyStarts.append((firstIndex + trials, trial))
        case .lateWithoutPause(let watched): suspects.append((firstIndex + trials, trial, watched))
        case .excused: excused += 1
        case .unjudged: unjudged += 1
        case .inTime: break
        }
        if case .unjudged = verdict { return }
        if trial.raced { exercised += 1 }
    }

    /// Adds a round the control came through clean: all it shows counts.
    mutating func absorb(_ round: DisposalTally) {
        absorbViolations(round)
        exercised += round.exercised
        excused += round.excused
        unjudged += round.unjudged
        suspects += round.suspects
    }

    /// Adds a round set aside: only its starts after an early disposal count, which no stop
    /// of the machine explains.
    mutating func absorbViolations(_ round: DisposalTally) {
        trials += round.trials
        earlyStarts += round.earlyStarts
    }

    /// Why the rule fails, once the trials so far prove a violation: a start after an early
    /// disposal, or a second late start with no evidence in rounds the control came through
    /// clean.
    func failure() -> String? {
        let micro = { (duration: Duration) in Int((duration.timeInterval * 1e6).rounded()) }
        let tail =
            """
            in \(trials) trials (\(excused) late starts came while the worker or the machine was held up and were \
            excused)
            """
        if let (index, trial) = earlyStarts.first {
            return
                """
                action #\(index) started although dispose() returned \(micro(.zero - trial.offset)) µs before the \
                action ahead of it was told to return, so before the scheduler could pick it up; \(earlyStarts.count) \
                such starts \(tail)
                """
        }
        guard suspects.count >= 2 else { return nil }
        let starts = suspects.prefix(2).map { index, trial, watched in
            """
            action #\(index) started \(micro(trial.lateness ?? .zero)) µs after dispose() returned (disposed \
            \(micro(trial.offset)) µs after the action ahead of it was told to return; watched \(micro(watched)) µs)
            """
        }
        return
            """
            \(starts.joined(separator: ", and ")), each on the thread its pacer returned on, which kept its core \
            since, while the disposing thread watched the clock and saw the machine run without a pause; \
            \(suspects.count) such starts \(tail), and none in the same rounds of the suite's own atomic-claim control
            """
    }
}

/// One action of CAN-3 and its pacer: when each step happened, and whether the action's
/// thread was preempted before it started.
final class DisposalTrial: Sendable {
    /// When the disposal comes relative to the pacer's word to return: negative is before.
    let offset: Duration
    let pacerStarted = Signal()
    let go = Signal()
    let started = Signal()
    let goAt = Box<ContinuousClock.Instant?>(nil)
    let pacerCore = Box<Int?>(nil)
    let pacerStartMark = Box<ThreadMark?>(nil)
    let pacerSawGo = Box(false)
    let pacerEnd = Box<ContinuousClock.Instant?>(nil)
    let start = Box<ContinuousClock.Instant?>(nil)
    let pacerMark = Box<ThreadMark?>(nil)
    let evidence = Box<ThreadMark.Evidence?>(nil)
    let returned = Box<ContinuousClock.Instant?>(nil)
    let watch = Box<PauseWatch?>(nil)
    let interruptsBefore = Box<CoreInterrupts?>(nil)
    let interruptsAfter = Box<CoreInterrupts?>(nil)

    init(offset: Duration) { self.offset = offset }

    /// Whether the core the pacer ran on took an interrupt between the disposing thread's
    /// readings around the race; nil when unknown.
    var workerInterrupted: Bool? {
        guard let core = pacerCore.value, let before = interruptsBefore.value, let after = interruptsAfter.value
        else { return nil }
        return after.interrupted(core, since: before)
    }

    /// How long after `dispose()` returned the action started, negative when before; nil if
    /// it never ran.
    var lateness: Duration? {
        guard let start = start.value, let returned = returned.value else { return nil }
        return returned.duration(to: start)
    }

    /// Whether the action has started, no later than ``DisposalTally/grace`` after
    /// `dispose()` returned: such a start is in time whatever the machine did.
    var startedInTime: Bool {
        guard started.hasFired, let lateness else { return false }
        return lateness <= DisposalTally.grace
    }

    /// Whether the disposal raced the worker's pick-up of the action: it came after the pacer
    /// returned, which it did within 10 µs of being told to.
    var raced: Bool {
        guard offset >= .zero, let goAt = goAt.value, let end = pacerEnd.value, let returned = returned.value else {
            return false
        }
        return goAt.duration(to: end) <= .microseconds(10) && end <= returned
    }
}
