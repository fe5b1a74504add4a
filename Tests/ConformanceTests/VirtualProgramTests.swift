import SchedulerProbes
import Schedulers
import Testing

@testable import SchedulerConformance

/// LIN-7's model, checked by hand on programs small enough to follow, its deadlines, and its
/// programs' generation and shrinking.
@Suite struct VirtualProgramTests {
    private let ms = VirtualProgramTime.millisecond

    private func events(_ calls: [VirtualProgramCall], handles: Set<Int> = []) -> [VirtualProgramEvent] {
        let keys = Dictionary(uniqueKeysWithValues: handles.map { (ProgramHandleKey(n: $0, instance: 0), true) })
        return VirtualProgramModel.events(of: VirtualProgram(calls: calls), tracksCurrent: true, handles: keys)
    }

    @Test func deadlinesFallOnEvenMillisecondsAndTicksOnePastAMultipleOfFour() {
        #expect(VirtualProgramTime.deadline(offset: 0, now: 5 * ms) == 4 * ms)
        #expect(VirtualProgramTime.deadline(offset: -4, now: 3 * ms) == -2 * ms)
        #expect(VirtualProgramTime.firstTick(offset: 0, now: 0) == 1 * ms)
        #expect(VirtualProgramTime.firstTick(offset: 0, now: 1 * ms) == 5 * ms)
        #expect(VirtualProgramTime.firstTick(offset: 2, now: 3 * ms) == 9 * ms)
    }

    @Test func aPastDeadlineRunsAtThePresentBehindWorkAlreadyDueThere() {
        let program: [VirtualProgramCall] = [
            .advanceBy(10), .schedule(0, body: []), .scheduleAt(1, offset: -4, body: []), .advanceBy(0),
        ]
        #expect(
            events(program) == [
                .returned(call: 0, now: 10 * ms), .returned(call: 1, now: 10 * ms), .returned(call: 2, now: 10 * ms),
                .started(0, run: 0, at: 10 * ms, asCurrent: true), .ended(0, run: 0),
                .started(1, run: 0, at: 10 * ms, asCurrent: true), .ended(1, run: 0),
                .returned(call: 3, now: 10 * ms),
            ])
    }

    @Test func aSeriesTicksOnItsGridAmongOtherWorkAndStopsInItsLastTick() {
        // Ticks at 1, 5, 9 ms (the third disposes it); a one-shot at 6 ms runs between them.
        let program: [VirtualProgramCall] = [
            .repeating(0, offset: 0, interval: 4, leeway: 0, ticks: 3, body: [.now]),
            .scheduleAt(1, offset: 6, body: []),
            .advanceTo(20),
        ]
        let starts = events(program).compactMap { event -> String? in
            guard case .started(let n, let run, let at, _) = event else { return nil }
            return "\(n).\(run)@\(at / ms)"
        }
        #expect(starts == ["0.0@1", "0.1@5", "1.0@6", "0.2@9"])
    }

    @Test func aStepIsNeverSpentOnDisposedWorkAndMovesTheTimeToWhatItRan() {
        let program: [VirtualProgramCall] = [
            .scheduleAt(0, offset: 2, body: []), .scheduleAt(1, offset: 4, body: []), .dispose(0), .step(1), .now,
        ]
        let got = events(program, handles: [0, 1])
        #expect(got.contains(.started(1, run: 0, at: 4 * ms, asCurrent: true)))
        #expect(got.contains(.stepped(1)))
        #expect(got.contains(.now(4 * ms)))
        #expect(!got.contains { if case .started(0, _, _, _) = $0 { true } else { false } })
    }

    @Test func programsAreDrawnFromTheirSeedAndShrinkToSmallerOnes() {
        var first = SplitMix64(seed: 7)
        var again = SplitMix64(seed: 7)
        let all = VirtualProgram.Doors(steps: true, timers: true, repeating: true)
        #expect(VirtualProgram.generate(&first, doors: all) == VirtualProgram.generate(&again, doors: all))
        var random = SplitMix64(seed: 8)
        let plain = VirtualProgram.Doors(steps: false, timers: false, repeating: false)
        let programs = (0..<200).map { _ in VirtualProgram.generate(&random, doors: plain) }
        #expect(programs.contains { $0.size >= 8 })
        // Through the doors allowed only, at any depth.
        func allowed(_ call: VirtualProgramCall) -> Bool {
            switch call {
            case .step, .scheduleAt, .repeating: false
            default: call.body.allSatisfy(allowed)
            }
        }
        #expect(programs.allSatisfy { $0.calls.allSatisfy(allowed) })
        for program in programs where program.size > 1 {
            #expect(program.shrinks.allSatisfy { $0.size <= program.size })
            #expect(program.shrinks.contains { $0.size < program.size })
        }
    }

    @Test func theReferenceTestSchedulerPassesLIN7() {
        for subject in ReferenceSubjects.all where subject.name == "test" {
            let result = ConformanceRunner.run(
                subject, rules: [RuleCatalogue.rule(.lin7)], timing: MutantKillTests.timing)[0]
            #expect(result.status == .passed, "\(subject.name): \(result.message ?? "")")
        }
    }
}
