import Testing

@testable import SchedulerConformance

/// LIN-1's model of a serial scheduler and LIN-2's of a virtual-time one, step by step.
@Suite struct SchedulerModelTests {
    /// The one way `steps` allow.
    func only<Model: SequentialModel>(_ steps: [(outcome: Model.Outcome, next: Model)]) -> Model {
        #expect(steps.count == 1)
        return steps[0].next
    }

    @Test func aSerialSchedulerModelRefusesAStartOutOfTurnAndADisposedStart() {
        let model = SchedulerModel(serial: true, tracksCurrent: true)
        let scheduled = model.apply(.schedule(1))[0].next.apply(.schedule(2))[0].next
        #expect(scheduled.apply(.start(2)).isEmpty)
        #expect(scheduled.apply(.start(1)).map(\.outcome) == [.ran(asCurrent: true)])
        let disposed = scheduled.apply(.dispose(1))[0].next
        #expect(disposed.apply(.start(1)).isEmpty)
        #expect(disposed.apply(.quiescent).map(\.outcome) == [.pending([2])])
    }

    /// A run asked for inside a run is queued once that run returned, behind work scheduled
    /// meanwhile; one asked for after it returned is queued at the call; a disposed recursion
    /// never runs again.
    @Test func aSerialSchedulerModelQueuesARecursionsRunsAsTheSemanticsSay() {
        let model = SchedulerModel(serial: true, tracksCurrent: false)
        var state = only(model.apply(.scheduleRecursive(1, bodies: [[.rerun(1)]])))
        state = only(state.apply(.start(1)))
        state = only(state.apply(.rerun(1)))
        state = only(state.apply(.schedule(2)))
        // Once the run returned its rerun may be queued before or after the next call.
        let returned = only(state.apply(.end(1)))
        #expect(returned.apply(.schedule(3)).count == 2)
        #expect(returned.apply(.start(1)).isEmpty, "the rerun overtook work scheduled while its run went on")
        state = only(returned.apply(.start(2)))
        state = only(state.apply(.end(2)))
        state = only(state.apply(.start(1)))
        state = only(state.apply(.end(1)))
        // A late reschedule is queued at once, behind what is already waiting.
        state = only(state.apply(.schedule(4)))
        state = state.apply(.reschedule(1)).first { $0.outcome == .done }!.next
        #expect(state.apply(.start(1)).isEmpty)
        #expect(state.apply(.quiescent).map(\.outcome) == [.pending([4, 1])])
        let disposed = state.apply(.dispose(1)).first { $0.outcome == .done }!.next
        #expect(disposed.apply(.quiescent).map(\.outcome) == [.pending([4])])
        #expect(disposed.apply(.reschedule(1)).allSatisfy { $0.next == disposed })
    }

    /// Timed work starts at no point the model fixes, but one at a time with the rest, never
    /// once disposed, a one-shot once and a series any number of times; an early start is
    /// never what the model gives.
    @Test func aSerialSchedulerModelLetsTimedWorkStartWheneverNothingRuns() {
        let model = SchedulerModel(serial: true, tracksCurrent: true)
        var state = only(model.apply(.schedule(1)))
        state = only(state.apply(.scheduleAfter(2, ms: 1)))
        state = only(state.apply(.scheduleRepeating(3, ms: 1, every: 1)))
        // Ahead of the plain action queued before it: its deadline is real time.
        let timerFirst = only(state.apply(.start(2)))
        #expect(timerFirst.apply(.start(1)).isEmpty, "two at once on a serial subject")
        #expect(timerFirst.apply(.start(3)).isEmpty, "a tick beside a timed action")
        state = only(only(timerFirst.apply(.end(2))).apply(.start(1)))
        state = only(state.apply(.end(1)))
        #expect(state.apply(.start(2)).isEmpty, "a one-shot ran twice")
        for _ in 0..<2 { state = only(only(state.apply(.start(3))).apply(.end(3))) }
        #expect(state.apply(.start(3)).map(\.outcome) == [.ran(asCurrent: true)])
        let disposed = state.apply(.dispose(3)).first { $0.outcome == .done }!.next
        #expect(disposed.apply(.start(3)).isEmpty, "a tick after its series was disposed")
        #expect(disposed.apply(.quiescent).map(\.outcome) == [.pending([])])
        // A one-shot that never ran is still pending at the end.
        let waiting = only(model.apply(.scheduleAfter(1, ms: 0)))
        #expect(waiting.apply(.quiescent).map(\.outcome) == [.pending([1])])
    }

    /// In virtual time too, a run asked for inside a run is queued for the present once that
    /// run returned, behind what the run scheduled after asking.
    @Test func aVirtualTimeModelQueuesARunAskedForInsideARunOnceItReturned() {
        let model = VirtualTimeModel(tracksCurrent: false)
        var state = only(model.apply(.scheduleRecursive(1, bodies: [[.rerun(1)]])))
        state = only(state.apply(.drive(.all)))
        state = only(state.apply(.start(1)))
        state = only(state.apply(.rerun(1)))
        state = only(state.apply(.schedule(2, at: nil)))
        state = only(state.apply(.end(1)))
        #expect(state.apply(.start(1)).isEmpty, "the rerun overtook work scheduled while its run went on")
        state = only(state.apply(.start(2)))
        state = only(state.apply(.end(2)))
        state = only(state.apply(.start(1)))
        state = only(state.apply(.end(1)))
        #expect(!state.apply(.settle(.all)).isEmpty)
    }
}
