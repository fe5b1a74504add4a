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
