import NIOCore
import NIOEmbedded
import SchedulerProbes
import Testing

/// The behaviours the matrix's explanations name, shown on the libraries alone, without the
/// suite: each test is the explanation's reproduction, and fails once the library changes
/// (then the explanation, and the matrix's expected failures, go too). The same programs are
/// printed in the Third-party matrix article.
@Suite struct LibraryBehaviourTests {
    /// nio-embedded LIN-7: tasks due at one instant run as one batch, so one cancelled by an
    /// earlier task of the batch still runs.
    @Test func anEmbeddedLoopRunsATaskCancelledByAnEarlierOneDueAtTheSameInstant() {
        let loop = EmbeddedEventLoop()
        let ran = Box<[String]>([])
        let second = Box<Scheduled<Void>?>(nil)
        _ = loop.scheduleTask(in: .zero) {
            ran.update { $0.append("first") }
            second.value?.cancel()
        }
        second.value = loop.scheduleTask(in: .zero) { ran.update { $0.append("second") } }
        loop.advanceTime(by: .zero)
        #expect(ran.value == ["first", "second"])
    }

    /// nio-embedded VT-10 (and LIN-2's, LIN-7's): a task whose deadline has passed runs with
    /// `now` set back to that deadline.
    @Test func anEmbeddedLoopRunsAPastDeadlineWithTheClockSetBack() {
        let loop = EmbeddedEventLoop()
        loop.advanceTime(by: .seconds(10))
        let seen = Box<NIODeadline?>(nil)
        _ = loop.scheduleTask(deadline: .uptimeNanoseconds(0)) { seen.value = loop.now }
        loop.advanceTime(by: .zero)
        #expect(seen.value == .uptimeNanoseconds(0))
        #expect(loop.now == .uptimeNanoseconds(10_000_000_000))
    }
}
