import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// Hours of mixed work through one scheduler, the live heap sampled whenever it is quiet:
    /// a scheduler that keeps one closure in ten thousand passes every short run, not this.
    public static let soak = StressScenario(
        .soak,
        """
        Opt-in (`--scenario soak`; `make stress-soak BUDGET=1h`). Rounds of mixed work from producer threads — plain \
        actions, timers a few microseconds ahead, actions disposed before their turn, five-step recursions, repeating \
        timers that dispose themselves after three ticks — each round waited for until the scheduler is quiet; then \
        the live heap (jemalloc's allocated bytes, thread caches off) and resident memory are sampled. The heap's \
        floor over the run's second half (the lowest sample of each eighth) is fitted against the actions run: growth \
        over 1 KiB per 10⁶ actions that raised every floor above the one before is a leak (a closure kept in ten \
        thousand is about thirty times that). A correct Dispatch scheduler's heap moves too, in steps that come and \
        go: each thread keeps the blocks it ran for reuse, so in thirteen loaded 15 s runs of a correct concurrent \
        scheduler the floor rose in two to six windows of seven, never in all seven. An action lost or run twice is \
        forbidden too.
        """,
        outcomes: SoakOutcome.self
    ) { ctx throws(StressFailure) in
        let scheduler = ctx.subject.makeScheduler()
        let capabilities = ctx.subject.capabilities
        let virtual = scheduler as? any VirtualTimeScheduler
        // A virtual scheduler is driven by the thread that schedules; a confined one is used
        // by the thread that made it.
        let producers = virtual != nil || capabilities.contains(.threadConfined) ? 1 : ctx.threads
        let mix = SoakMix(capabilities: capabilities)
        var samples = SampleBuffer()
        var actions = 0
        try ctx.eachRound { _ throws(StressFailure) in
            let round = SoakRound(expectedPlain: producers * mix.plainPerProducer, mix: mix)
            let produce: @Sendable (Int) -> Void = { _ in round.produce(on: scheduler) }
            if producers == 1 { produce(0) } else { try ctx.onThreads(producers, produce) }
            virtual?.stepAll()
            try round.waitUntilQuiet(ctx)
            actions += round.ran
            ctx.addOperations(round.ran)
            samples.take {
                MemoryCurve.Sample(
                    actions: actions, liveBytes: Allocator.liveBytes(), residentBytes: Allocator.residentBytes())
            }
            return true
        }
        let curve = MemoryCurve(samples: samples.samples)
        ctx.setMemory(curve)
        guard samples.samples.first?.liveBytes != nil else {
            throw StressFailure(
                "the soak needs jemalloc's statistics (install libjemalloc-dev): without them the heap cannot be read")
        }
        guard let growth = curve.liveGrowthPerMillion else {
            throw StressFailure(
                """
                the soak ran \(actions) actions in \(samples.samples.count) sampled rounds: too few to fit the heap's \
                growth (it needs \(MemoryCurve.minimumRounds) rounds)
                """,
                inconclusive: true)
        }
        ctx.setMetric(.heapGrowthBytesPerMillionActions, growth)
        if let resident = curve.residentGrowthPerMillion {
            ctx.setMetric(.residentGrowthBytesPerMillionActions, resident)
        }
        ctx.record(curve.leaks ? SoakOutcome.leak : .steady)
    }
}

/// The samples of a soak in storage reserved up front: a buffer that grew as the run went on
/// would be a leak of the soak's own (an array's doublings showed as 12 and 25 KiB steps).
/// When it fills, every other sample goes and only every other round is sampled from then on.
private struct SampleBuffer {
    private(set) var samples: [MemoryCurve.Sample]
    private var stride = 1
    private var round = 0
    private static let capacity = 2 * MemoryCurve.maximumSamples

    init() {
        samples = []
        samples.reserveCapacity(Self.capacity)
    }

    /// Samples this round, if it is one of the rounds sampled.
    mutating func take(_ sample: () -> MemoryCurve.Sample) {
        defer { round += 1 }
        guard round % stride == 0 else { return }
        if samples.count == Self.capacity {
            samples = samples.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            samples.reserveCapacity(Self.capacity)
            stride *= 2
            guard round % stride == 0 else { return }
        }
        samples.append(sample())
    }
}

/// How many of each kind of work one producer submits per round, by what the subject claims.
private struct SoakMix: Sendable {
    let plainPerProducer = 1_000
    let timers: Bool
    let repeating: Bool
    let cancellation: Bool

    init(capabilities: SchedulerCapabilities) {
        timers = capabilities.contains(.timers)
        repeating = capabilities.contains(.repeating)
        cancellation = capabilities.contains(.cancellation)
    }
}

/// One round's work and its counts. Every action carries a small payload object, as an
/// event does: a kept closure keeps it too.
private final class SoakRound: Sendable {
    let expectedPlain: Int
    let mix: SoakMix
    private let plainRan = Atomic<Int>(0)
    /// Work whose count is known in advance (timers, recursion steps, repeating ticks): what
    /// was asked for, and what ran.
    private let otherExpected = Atomic<Int>(0)
    private let otherRan = Atomic<Int>(0)
    /// Runs of actions disposed before their turn: allowed to be zero or one each.
    private let disposedRan = Atomic<Int>(0)

    init(expectedPlain: Int, mix: SoakMix) {
        self.expectedPlain = expectedPlain
        self.mix = mix
    }

    /// Every action that ran in the round.
    var ran: Int {
        plainRan.load(ordering: .relaxed) + otherRan.load(ordering: .relaxed) + disposedRan.load(ordering: .relaxed)
    }

    /// One producer's share: per ten plain actions, one of each other kind the subject claims.
    func produce(on scheduler: any Scheduler) {
        for index in 0..<mix.plainPerProducer {
            let payload = SoakPayload(index)
            scheduler.schedule { [self] in
                blackHole(payload)
                self.plainRan.wrappingAdd(1, ordering: .relaxed)
            }
            guard index % 10 == 0 else { continue }
            if mix.timers {
                otherExpected.wrappingAdd(1, ordering: .relaxed)
                let scheduled = try? scheduler.schedule(after: .microseconds(20)) { [self] in
                    blackHole(payload)
                    self.otherRan.wrappingAdd(1, ordering: .relaxed)
                }
                if scheduled == nil { otherRan.wrappingAdd(1, ordering: .relaxed) }
            }
            if mix.cancellation {
                scheduler.schedule { [self] in
                    blackHole(payload)
                    self.disposedRan.wrappingAdd(1, ordering: .relaxed)
                }?.dispose()
            }
            otherExpected.wrappingAdd(5, ordering: .relaxed)
            let steps = Atomic<Int>(0)
            scheduler.scheduleRecursive { [self] reschedule in
                blackHole(payload)
                self.otherRan.wrappingAdd(1, ordering: .relaxed)
                if steps.wrappingAdd(1, ordering: .relaxed).newValue < 5 { reschedule() }
            }
            if mix.repeating {
                otherExpected.wrappingAdd(3, ordering: .relaxed)
                let ticks = Atomic<Int>(0)
                let handle = Lock<(any Disposable)?>(nil)
                let disposeAtThird = Atomic<Bool>(false)
                let timer = try? scheduler.schedule(
                    at: scheduler.now, repeatingEvery: .microseconds(50), leeway: .zero
                ) { [self] in
                    let tick = ticks.wrappingAdd(1, ordering: .relaxed).newValue
                    guard tick <= 3 else { return }
                    self.otherRan.wrappingAdd(1, ordering: .relaxed)
                    if tick == 3 {
                        // The handle may not be stored yet when a fast timer ticks thrice.
                        if let timer = handle.withLock({ $0 }) {
                            timer.dispose()
                        } else {
                            disposeAtThird.store(true, ordering: .relaxed)
                        }
                    }
                }
                if let timer {
                    handle.withLock { $0 = timer }
                    if disposeAtThird.load(ordering: .relaxed) { timer.dispose() }
                } else {
                    otherRan.wrappingAdd(3, ordering: .relaxed)
                }
            }
        }
    }

    /// Waits until every action of the round ran, then checks that none ran twice.
    func waitUntilQuiet(_ ctx: StressContext) throws(StressFailure) {
        let giveUp = ContinuousClock.now + ctx.mustHappen
        func done() -> Bool {
            plainRan.load(ordering: .relaxed) >= expectedPlain
                && otherRan.load(ordering: .relaxed) >= otherExpected.load(ordering: .relaxed)
        }
        while !done(), ContinuousClock.now < giveUp { usleep(100) }
        let plain = plainRan.load(ordering: .relaxed)
        let other = otherRan.load(ordering: .relaxed)
        let otherWanted = otherExpected.load(ordering: .relaxed)
        if plain < expectedPlain || other < otherWanted {
            ctx.record(
                SoakOutcome.lost,
                count: expectedPlain - min(plain, expectedPlain) + otherWanted - min(other, otherWanted))
            throw StressFailure(
                """
                \(expectedPlain - plain) of \(expectedPlain) plain actions and \(otherWanted - other) of \
                \(otherWanted) timer, recursion and repeating runs did not run within \(ctx.mustHappen)
                """
            )
        }
        if plain > expectedPlain { ctx.record(SoakOutcome.doubled, count: plain - expectedPlain) }
        ctx.record(SoakOutcome.ran, count: plain + other)
    }
}

/// What an action carries: an event's worth of memory.
private final class SoakPayload: Sendable {
    let index: Int
    let note: (Int, Int, Int, Int)
    init(_ index: Int) {
        self.index = index
        note = (index, index, index, index)
    }
}

/// What a run of `soak` observes; the raw values are the names reports use.
public enum SoakOutcome: String, StressOutcome {
    case ran, steady, leak, lost, doubled

    public var judgement: StressScenario.Judgement {
        switch self {
        case .ran: .acceptable("an action, timer, recursion step or tick ran once")
        case .steady:
            .acceptable(
                "the heap's floor did not grow with the work (≤ 1 KiB per 10⁶ actions, or not in every window)"
            )
        case .leak:
            .forbidden(
                """
                the heap's floor grew with the work, over 1 KiB per 10⁶ actions and in every window: something is \
                kept for good
                """
            )
        case .lost: .forbidden("an action never ran")
        case .doubled: .forbidden("an action ran twice")
        }
    }
}
