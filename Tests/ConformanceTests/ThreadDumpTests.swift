import Dispatch
import Foundation
import SchedulerDiagnostics
import SchedulerProbes
import Schedulers
import Testing

@testable import CommandSupport
@testable import SchedulerConformance

/// A tool whose subjects' names cannot select them refuses to run (exit 64) and says why.
@Suite struct SubjectNamingTests {
    @Test func twoSubjectsWithOneNameOrAGroupsNameAreRefused() {
        let subject = ConformanceSubject(name: "mine", origin: .thirdParty) { ImmediateScheduler.shared }
        #expect(Toolkit(subjects: [subject]).namingProblem == nil)
        #expect(
            Toolkit(subjects: [subject, subject]).namingProblem
                == "two subjects are named 'mine'; each needs a name of its own")
        let all = ConformanceSubject(name: "all", origin: .thirdParty) { ImmediateScheduler.shared }
        #expect(Toolkit(subjects: [all]).namingProblem?.contains("names a group") == true)
    }
}

/// A hang's stacks name Swift functions as the source does, not as gdb prints them.
@Suite struct ThreadDumpTests {
    @Test func gdbsMangledNamesAreDemangled() async {
        let stacks = await ThreadDump.demangled(
            "Thread 2 (LWP 7):\n#3 0x0000 in $s10Schedulers14QueueSchedulerC8scheduleyAA10Disposable_pSgyyYbcF ()")
        #expect(stacks == "Thread 2 (LWP 7):\n#3 0x0000 in QueueScheduler.schedule(_:) ()")
    }
}

/// A thread a rule left spinning is found; one that ended is not.
@Suite struct LeftoversTests {
    // Under the sanitizer a spinning thread spends much of its time blocked in the
    // sanitizer's own runtime, so the kernel does not see it running at every look.
    @Test(.disabled(if: ThreadSanitizerBuild.isEnabled, "the sanitizer's runtime blocks a spinning thread"))
    func aSpinningThreadIsFoundUntilItStops() {
        let stop = Signal()
        let started = Signal()
        let stopped = DispatchSemaphore(value: 0)
        let thread = Thread {
            CorePinning.nameCurrentThread("leftover-spin")
            started.fire()
            while !stop.hasFired {}
            stopped.signal()
        }
        thread.start()
        #expect(spinWait(upTo: .seconds(10)) { started.hasFired })
        let busy = Leftovers.busyThreads()
        #expect(busy.contains { $0.hasPrefix("leftover-spin ") }, "\(busy)")
        stop.fire()
        stopped.wait()
        // The thread may still be on its way out; its name is gone once it has exited.
        let gone = spinWait(upTo: .seconds(10)) { !Leftovers.busyThreads().contains { $0.hasPrefix("leftover-spin ") } }
        #expect(gone)
    }
}
