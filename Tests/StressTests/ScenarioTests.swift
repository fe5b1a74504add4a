import Foundation
import SchedulerConformance
import SchedulerMutants
import SchedulerProbes
import Schedulers
import TestSupport
import Testing

@testable import SchedulerStress

/// Each scenario in-process, briefly: reference subjects show no forbidden outcome, and a
/// deliberately broken subject shows the forbidden outcome the scenario exists to catch.
/// The clock and executor scenarios run through the `stress` command instead
/// (`StressCommandTests`): their subjects are Swift concurrency's, and in this process other
/// tests hold the cooperative pool.
@Suite(.serialized) struct ScenarioTests {
    static func run(
        _ scenario: ScenarioID, on subjectName: String, seconds: Double = 0.3, mustHappen: Duration = .seconds(5)
    ) throws -> StressRun {
        let scenario = try #require(StressCatalogue.scenario(scenario))
        let subject = try #require((ReferenceSubjects.all + Mutants.subjects).first { $0.name == subjectName })
        let context = StressContext(
            subject: subject, threads: 4, duration: .milliseconds(Int64(seconds * 1_000)), seed: 42,
            mustHappen: mustHappen * ThreadSanitizerBuild.slowdown)
        let start = ContinuousClock.now
        var failure: StressFailure?
        do throws(StressFailure) { try scenario.run(context) } catch { failure = error }
        return StressRun(scenario: scenario, context: context, duration: ContinuousClock.now - start, failure: failure)
    }

    @Test func theCatalogueHasEveryScenario() {
        #expect(
            StressCatalogue.all.map(\.id) == [
                .fanIn, .disposeRace, .recursiveStorm, .timerStorm, .repeatingCancelRace,
                .currentChurn, .trampolineAndVirtualLoad, .throughput, .growth, .executorThroughput,
                .sleepStorm, .sleepThroughput,
            ])
        for scenario in StressCatalogue.all {
            #expect(scenario.outcomes.contains { $0.expect == .forbidden }, "\(scenario.id) declares nothing forbidden")
        }
    }

    @Test(arguments: [
        (ScenarioID.fanIn, "queue"), (ScenarioID.fanIn, "concurrent"), (ScenarioID.fanIn, "immediate"),
        (ScenarioID.disposeRace, "queue"), (ScenarioID.disposeRace, "concurrent"),
        (ScenarioID.recursiveStorm, "queue"), (ScenarioID.recursiveStorm, "trampoline"),
        (ScenarioID.timerStorm, "queue"), (ScenarioID.repeatingCancelRace, "queue"),
        (ScenarioID.currentChurn, "queue"), (ScenarioID.currentChurn, "concurrent"),
        (ScenarioID.trampolineAndVirtualLoad, "trampoline"), (ScenarioID.trampolineAndVirtualLoad, "test"),
        (ScenarioID.throughput, "queue"), (ScenarioID.throughput, "trampoline"),
    ])
    func referenceSubjectsShowNoForbiddenOutcome(_ scenario: ScenarioID, _ subject: String) throws {
        let run = try Self.run(scenario, on: subject)
        #expect(run.status == .passed, "\(scenario) × \(subject): \(run.message ?? "")")
        #expect(run.operations > 0)
    }

    @Test(arguments: [
        (ScenarioID.fanIn, "mutant-lossy", "lost"),
        (ScenarioID.growth, "mutant-lossy", "lost"),
        // Which of the two a thread-per-action scheduler shows first depends on timing.
        (ScenarioID.fanIn, "mutant-overlapping", "overlapped|out of order"),
        (ScenarioID.fanIn, "mutant-lifo", "out of order"),
        (ScenarioID.disposeRace, "mutant-ignores-disposal", "ran though disposed while held"),
        (ScenarioID.recursiveStorm, "mutant-recursion-ignores-disposal", "runs after dispose returned"),
        (ScenarioID.recursiveStorm, "mutant-stack-recursion", "stack grew"),
        (ScenarioID.timerStorm, "mutant-early-timers", "early"),
        (ScenarioID.repeatingCancelRace, "mutant-repeating-ignores-disposal", "ticks after dispose returned"),
        (ScenarioID.currentChurn, "mutant-current-not-set", "wrong scheduler"),
        // One queue for all threads: another thread's action runs on the draining thread, or,
        // when the drain ends before it was queued (the sanitizer's timing), never.
        (ScenarioID.trampolineAndVirtualLoad, "mutant-shared-trampoline", "wrong thread|lost"),
    ])
    func brokenSubjectsShowTheForbiddenOutcome(_ scenario: ScenarioID, _ subject: String, _ outcome: String) throws {
        let run = try Self.run(scenario, on: subject)
        #expect(run.status == .failed, "\(scenario) × \(subject) was \(run.status)")
        let expected = outcome.split(separator: "|").map(String.init)
        #expect(expected.contains { (run.outcomes[$0]?.count ?? 0) > 0 }, "no '\(outcome)' in \(run.outcomes)")
    }

    @Test func theGrowthExponentIsTheSlopeOfTheLogarithms() throws {
        let linear = try #require(GrowthCurve.exponent([(1_000, 0.001), (10_000, 0.01), (100_000, 0.1)]))
        #expect(abs(linear - 1) < 1e-9)
        let quadratic = try #require(GrowthCurve.exponent([(1_000, 0.001), (10_000, 0.1)]))
        #expect(abs(quadratic - 2) < 1e-9)
        #expect(GrowthCurve.exponent([(1_000, 0.001)]) == nil, "one size has no slope")
    }

    /// Each kind of reference subject gets its workload and a curve over several sizes. The
    /// exponent's value is the report's to show, not a test's to time.
    @Test(arguments: [("test", "virtual-time drain"), ("trampoline", "trampoline queue"), ("queue", "fan-in")])
    func growthMeasuresEachKindsWorkload(_ subject: String, _ workload: String) throws {
        let run = try Self.run(.growth, on: subject, seconds: 0.1)
        #expect(run.status != .error, "\(subject): \(run.message ?? "")")
        let curve = try #require(run.growth)
        #expect(curve.workload.rawValue == workload)
        #expect(curve.sizes.count >= 2 && curve.sizes.first == 1_000)
        #expect(
            curve.nanosecondsPerAction.count == curve.sizes.count && curve.nanosecondsPerAction.allSatisfy { $0 > 0 })
        // A fan-in fitted from preempted rounds is judged by its held drain.
        #expect(run.metrics[.growthExponent] == (curve.heldExponent ?? curve.exponent))
    }

    /// A scheduler as correct as the reference whose every insert sorts its queue again (as
    /// combine-schedulers' test scheduler does) is called superlinear: its drain of 3,162
    /// actions costs about ten times its drain of 10³, with every core busy too.
    @Test(.nightly("fits an exponent to timed rounds"))
    func growthCallsAQueueSortedOnEveryInsertSuperlinear() throws {
        // Half a second: with a tenth, the two sizes measured have few rounds each, and one
        // preemption can flatten the fit.
        let run = try Self.run(.growth, on: "mutant-resorting-virtual", seconds: 0.5)
        #expect(run.status == .failed, "\(run.status): \(run.message ?? "")")
        #expect(run[GrowthOutcome.superlinear]?.count == 1, "exponent \(run.growth?.exponent ?? -1)")
    }

    /// A backlog that drains for three times the stall bound, an action every 10 ms, is
    /// waited for to the end; one whose last five never come is given up a bound after the
    /// last tick: a loaded machine drains a large backlog slowly, and one bound in all would
    /// call it lost.
    @Test func growthWaitsForABacklogWhileItKeepsDraining() {
        let stall = Duration.milliseconds(500)
        let draining = Countdown(150)
        let slow = Thread {
            for _ in 0..<150 {
                Thread.sleep(forTimeInterval: 0.01)
                draining.tick()
            }
        }
        slow.start()
        let start = ContinuousClock.now
        #expect(draining.wait(whileFalling: stall))
        #expect(ContinuousClock.now - start > stall * 2, "the drain was not longer than the bound")

        let stalled = Countdown(10)
        for _ in 0..<5 { stalled.tick() }
        #expect(!stalled.wait(whileFalling: .milliseconds(50)))
        #expect(stalled.count == 5)
    }

    /// The measurement a superlinear fan-in from preempted rounds is judged by instead: every
    /// action queued behind a held worker, then drained alone. A queue that removes the first
    /// of an array grows with what is queued there (every action is, by construction); the
    /// reference queue does not.
    @Test(.nightly("fits an exponent to timed rounds"))
    func aHeldDrainQueuesEverythingBehindTheWorker() throws {
        // The sanitizer makes every action ten times dearer and leaves the array's shifts
        // alone, which flattens the mutant's exponent below the line.
        guard !ThreadSanitizerBuild.isEnabled else { return }
        func exponent(_ name: String) throws -> Double? {
            let subject = try #require((ReferenceSubjects.all + Mutants.subjects).first { $0.name == name })
            let context = StressContext(
                subject: subject, threads: 4, duration: .seconds(1), seed: 42, mustHappen: .seconds(5))
            // Up to 31,623, past the held drain's own span: in this debug build each action's
            // fixed cost is several times the release build's, and over 10³ to 10⁴ alone it
            // hides enough of the array's shifts to fit the mutant under the bar.
            let points = try [1_000, 3_162, 10_000, 31_623].map { size in
                GrowthCurve.median(try (0..<3).map { _ in try GrowthCurve.Workload.measureHeld(size, context) })
            }
            return GrowthCurve.exponent(points.map { ($0.size, $0.seconds) })
        }
        let fifo = try #require(try exponent("mutant-array-fifo"))
        #expect(fifo > GrowthCurve.superlinear)
        let queue = try #require(try exponent("queue"))
        #expect(queue < GrowthCurve.superlinear)
    }

    /// A scheduler whose `schedule` waits for room does not deadlock the held drain: the hold
    /// ends after `mustHappen`, and every action still runs.
    @Test func aHeldDrainEndsItsHoldWhenSchedulingWaitsForRoom() throws {
        let subject = ConformanceSubject(name: "bounded") { BoundedQueue(room: 100) }
        let context = StressContext(
            subject: subject, threads: 1, duration: .seconds(1), seed: 42, mustHappen: .milliseconds(300))
        let start = ContinuousClock.now
        let point = try GrowthCurve.Workload.measureHeld(1_000, context)
        #expect(point.size == 1_000 && point.seconds > 0)
        #expect(ContinuousClock.now - start >= .milliseconds(300), "the hold ended before its bound")
    }

    @Test func throughputReportsTheRatioToTheBareBaseline() throws {
        let run = try Self.run(.throughput, on: "queue", seconds: 0.2)
        let ratio = try #require(run.ratioToBaseline)
        #expect(ratio > 0)
        #expect(run.metrics[BenchmarkUnit.action.baselineNanoseconds] ?? 0 > 0)
        #expect(run.baseline == .serialQueue)
    }

    /// Each is compared with what its user would write instead, and says so in its report.
    @Test func eachReferenceSubjectIsBenchmarkedAgainstItsOwnBareEquivalent() throws {
        let baselines = Dictionary(uniqueKeysWithValues: ReferenceSubjects.all.map { ($0.name, $0.baseline) })
        #expect(
            baselines == [
                "immediate": .serialQueue, "queue": .serialQueue, "queue-concurrent-target": .targetQueue,
                "concurrent": .concurrentQueue, "main": .mainQueue, "subscription": .serialQueue,
                "trampoline": .serialQueue, "test": .serialQueue, "queue-executor": .dispatchExecutor,
                "test-executor": .drivenExecutor, "virtual-clock": .parkedContinuations,
            ])
        let executor = try Self.run(.executorThroughput, on: "test-executor", seconds: 0.2)
        #expect(executor.baseline == .drivenExecutor && executor.ratioToBaseline ?? 0 > 0)
        let fanIn = try Self.run(.fanIn, on: "queue", seconds: 0.1)
        #expect(fanIn.baseline == nil, "only a benchmark has a baseline")
    }

    @Test func scenariosSkipSubjectsOfAnotherKind() throws {
        let executor = try #require(ReferenceSubjects.all.first { $0.name == "queue-executor" })
        #expect(StressCatalogue.scenario(.fanIn)?.skipReason(for: executor) == "is an executor, not a scheduler")
        let queue = try #require(ReferenceSubjects.all.first { $0.name == "queue" })
        #expect(StressCatalogue.scenario(.sleepStorm)?.skipReason(for: queue) == "is a scheduler, not a clock")
    }

    @Test func skipsWhatASubjectDoesNotClaim() throws {
        let scenario = try #require(StressCatalogue.scenario(.timerStorm))
        #expect(scenario.skipReason(for: TrampolineScheduler.shared.capabilities) == "does not claim timers")
    }
}

/// A serial queue whose `schedule` blocks while `room` actions are pending: the shape of a
/// bounded work queue.
private final class BoundedQueue: Scheduler {
    let name = "bounded"
    var capabilities: SchedulerCapabilities { [.asynchronous, .serial] }
    private let queue = QueueScheduler(name: "bounded")
    private let room: DispatchSemaphore

    init(room: Int) { self.room = DispatchSemaphore(value: room) }

    var now: SchedulerTime { queue.now }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        room.wait()
        let room = self.room
        return queue.schedule {
            action()
            room.signal()
        }
    }
}
