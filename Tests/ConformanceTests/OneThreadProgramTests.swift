import SchedulerProbes
import Schedulers
import Testing

@testable import SchedulerConformance

/// LIN-6's model, checked by hand on programs small enough to follow, and its programs'
/// generation and shrinking.
@Suite struct OneThreadProgramTests {
    private typealias Event = ProgramEvent

    /// No handles: what the reference trampoline returns at the top of a thread.
    private func events(_ calls: [ProgramCall], _ kind: OneThreadModel.Kind, handles: [ProgramHandleKey: Bool] = [:])
        -> [ProgramEvent]
    {
        OneThreadModel.events(
            of: OneThreadProgram(calls: calls, insideHost: false), kind, tracksCurrent: kind == .trampoline,
            handles: handles)
    }

    @Test func aTrampolineRunsNestedWorkAfterTheActionInOrderAndAnImmediateOneInside() {
        let program: [ProgramCall] = [.schedule(0, body: [.schedule(1, body: []), .schedule(2, body: [])])]
        #expect(
            events(program, .trampoline) == [
                .started(0, run: 0, current: .subject), .ended(0, run: 0),
                .started(1, run: 0, current: .subject), .ended(1, run: 0),
                .started(2, run: 0, current: .subject), .ended(2, run: 0),
                .returned(call: 0, current: .caller),
            ])
        #expect(
            events(program, .immediate) == [
                .started(0, run: 0, current: .caller),
                .started(1, run: 0, current: .caller), .ended(1, run: 0),
                .started(2, run: 0, current: .caller), .ended(2, run: 0),
                .ended(0, run: 0), .returned(call: 0, current: .caller),
            ])
    }

    @Test func aDisposalFromAnEarlierQueuedActionStopsALaterOne() {
        // #1 disposes #2 while both wait behind #0; #2 returned a handle, #0 (run at once) none.
        let program: [ProgramCall] = [
            .schedule(0, body: [.schedule(1, body: [.dispose(2)]), .schedule(2, body: [])])
        ]
        let handles = [ProgramHandleKey(n: 1, instance: 0): true, ProgramHandleKey(n: 2, instance: 0): true]
        #expect(
            events(program, .trampoline, handles: handles) == [
                .started(0, run: 0, current: .subject), .ended(0, run: 0),
                .started(1, run: 0, current: .subject), .ended(1, run: 0),
                .returned(call: 0, current: .caller),
            ])
        // Without a handle there is nothing to dispose: #2 runs.
        #expect(events(program, .trampoline).contains(.started(2, run: 0, current: .subject)))
    }

    @Test func aRunsReschedulesQueueBehindWhatItQueuedAndALateOneQueuesWhileBusy() {
        // Recursion #1 runs twice; its first run queues #2 before rescheduling, so #2 comes first.
        let program: [ProgramCall] = [
            .schedule(0, body: [.recurse(1, runs: 2, late: false, body: [.schedule(2, body: [])])]),
            .recurse(3, runs: 1, late: true, body: []),
            .schedule(4, body: [.reschedule(3), .schedule(5, body: [])]),
        ]
        let starts = events(program, .trampoline).compactMap { event -> String? in
            guard case .started(let n, let run, _) = event else { return nil }
            return "\(n).\(run)"
        }
        #expect(starts == ["0.0", "1.0", "2.0", "1.1", "2.1", "3.0", "4.0", "3.1", "5.0"])
    }

    @Test func anImmediateRecursionLoopsOnceItsRunReturnedAndStopsWhenDisposed() {
        let program: [ProgramCall] = [.recurse(0, runs: 3, late: false, body: [.schedule(1, body: [])])]
        let starts = events(program, .immediate).compactMap { event -> String? in
            guard case .started(let n, let run, _) = event else { return nil }
            return "\(n).\(run)"
        }
        #expect(starts == ["0.0", "1.0", "0.1", "1.1", "0.2", "1.2"])
        // A late recursion whose handle is disposed before its late reschedule never runs again.
        let disposed: [ProgramCall] = [.recurse(0, runs: 1, late: true, body: []), .dispose(0), .reschedule(0)]
        #expect(
            events(disposed, .immediate, handles: [ProgramHandleKey(n: 0, instance: 0): true]).filter {
                if case .started = $0 { return true } else { return false }
            }.count == 1)
    }

    @Test func theSubscriptionSchedulerRunsInlineWithACurrentSchedulerAndQueuesTheRestBehindTheProgram() {
        // #0 goes to the background (no current at the top); inside it #1 runs inline, and
        // recursion #2 waits behind it, as a recursion always does.
        let program: [ProgramCall] = [
            .schedule(0, body: [.schedule(1, body: []), .recurse(2, runs: 2, late: false, body: [])]),
            .schedule(3, body: []),
        ]
        let background = OneThreadModel.events(
            of: OneThreadProgram(calls: program, insideHost: false), .subscription, tracksCurrent: false, handles: [:])
        #expect(
            background == [
                .returned(call: 0, current: .caller), .returned(call: 1, current: .caller),
                .started(0, run: 0, current: .background),
                .started(1, run: 0, current: .background), .ended(1, run: 0),
                .ended(0, run: 0),
                .started(3, run: 0, current: .background), .ended(3, run: 0),
                .started(2, run: 0, current: .background), .ended(2, run: 0),
                .started(2, run: 1, current: .background), .ended(2, run: 1),
            ])
        // Inside the host's action the caller has a current scheduler: plain actions run inline,
        // the recursion waits for the action to end and runs with the host current.
        let inside = OneThreadModel.events(
            of: OneThreadProgram(calls: program, insideHost: true), .subscription, tracksCurrent: false, handles: [:])
        #expect(
            inside == [
                .started(0, run: 0, current: .caller),
                .started(1, run: 0, current: .caller), .ended(1, run: 0),
                .ended(0, run: 0), .returned(call: 0, current: .caller),
                .started(3, run: 0, current: .caller), .ended(3, run: 0), .returned(call: 1, current: .caller),
                .started(2, run: 0, current: .caller), .ended(2, run: 0),
                .started(2, run: 1, current: .caller), .ended(2, run: 1),
            ])
    }

    @Test func programsAreDrawnFromTheirSeedAndShrinkToSmallerOnes() {
        var first = SplitMix64(seed: 49)
        var again = SplitMix64(seed: 49)
        let program = OneThreadProgram.generate(&first)
        #expect(OneThreadProgram.generate(&again) == program)
        var random = SplitMix64(seed: 6)
        let programs = (0..<200).map { _ in OneThreadProgram.generate(&random) }
        #expect(programs.contains { $0.size >= 6 })
        for program in programs where program.size > 1 {
            #expect(program.shrinks.allSatisfy { $0.size <= program.size })
            #expect(program.shrinks.contains { $0.size < program.size })
        }
    }

    @Test func theReferenceImmediateTrampolineAndSubscriptionSchedulersPassLIN6() throws {
        for subject in ReferenceSubjects.all where ["immediate", "trampoline", "subscription"].contains(subject.name) {
            let result = ConformanceRunner.run(
                subject, rules: [RuleCatalogue.rule(.lin6)], timing: MutantKillTests.timing)[0]
            #expect(result.status == .passed, "\(subject.name): \(result.message ?? "")")
        }
    }
}
