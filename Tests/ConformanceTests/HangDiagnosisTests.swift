import Dispatch
import Foundation
import SchedulerDiagnostics
import SchedulerProbes
import Schedulers
import Testing

@testable import CommandSupport
@testable import SchedulerConformance

/// Blocked or spinning is read from the kernel's count over a window, the same at every look.
@Suite struct ThreadActivityTests {
    @Test(.disabled(if: ThreadSanitizerBuild.isEnabled, "the sanitizer's runtime blocks a spinning thread"))
    func aSpinningThreadAndABlockedOneAreToldApartEveryTime() {
        let stop = Signal()
        let ids = Lock<(spinning: Int32?, blocked: Int32?)>((nil, nil))
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        done.enter()
        Thread {
            ids.withLock { $0.spinning = CorePinning.currentThreadID }
            while !stop.hasFired {}
            done.leave()
        }.start()
        done.enter()
        Thread {
            ids.withLock { $0.blocked = CorePinning.currentThreadID }
            release.wait()
            done.leave()
        }.start()
        #expect(spinWait(upTo: .seconds(10)) { ids.withLock { $0.spinning != nil && $0.blocked != nil } })
        let (spinning, blocked) = ids.withLock { $0 }
        if let spinning, let blocked {
            for _ in 0..<5 {
                let found = HangDiagnosis.activities(of: [spinning, blocked])
                #expect(found[spinning] == "running: spinning on a core", "\(found)")
                #expect(found[blocked] == "blocked", "\(found)")
            }
        }
        stop.fire()
        release.signal()
        done.wait()
    }
}

/// A hang's stacks put the stuck thread first and name the subject's call it is stuck in.
@Suite struct HangDiagnosisTests {
    static let dump = """
        Thread 2 (Thread 0x7f00 (LWP 101) "worker"):
        #0  0x00007f in __futex_abstimed_wait_common () from /lib/x86_64-linux-gnu/libc.so.6
        #1  0x000055 in Worker.loop() () at /src/Sources/Mine/Worker.swift:20
        Thread 5 (Thread 0x7f01 (LWP 104) "producer-3"):
        #0  0x00007f in __lll_lock_wait () from /lib/x86_64-linux-gnu/libc.so.6
        #1  0x00007f in pthread_mutex_lock () from /lib/x86_64-linux-gnu/libc.so.6
        #2  0x000055 in MyScheduler.schedule(_:) (self=..., action=...) at /src/Sources/Mine/MyScheduler.swift:42
        #3  0x000055 in closure #1 in RuleContext.onThreads(_:spread:_:) () at \
        /src/Conformance/SchedulerConformance/RuleContext.swift:310
        """

    @Test func theStuckThreadComesFirstWithItsCall() {
        #expect(HangDiagnosis.stuckFrame(of: 104, in: Self.dump) == "MyScheduler.schedule(_:) at MyScheduler.swift:42")
        #expect(HangDiagnosis.ordered(Self.dump, first: [104]).hasPrefix("Thread 5 (Thread 0x7f01 (LWP 104)"))
        #expect(HangDiagnosis.stuckFrame(of: 999, in: Self.dump) == nil)
    }

    /// A release build's stacks: the harness's sources named relative to the package, a
    /// generic specialised from the standard library without a line. Only the subject's
    /// call is stuck.
    @Test func onlyTheSubjectsCallsAreStuckInAReleaseBuildsStacks() {
        let dump = """
            Thread 1 (Thread 0x7f00 (LWP 7) "conformance"):
            #0  0x00007f in __futex_abstimed_wait_common () from /lib/x86_64-linux-gnu/libc.so.6
            #1  0x000055 in specialized Collection.map<A, B>(_:) ()
            #2  0x000055 in static RuleWorker.run(subject:rules:) (subject=...) at \
            Conformance/Commands/RuleWorker.swift:18
            Thread 2 (Thread 0x7f01 (LWP 8) "rule CAN-6"):
            #0  0x00007f in __futex_abstimed_wait_common () from /lib/x86_64-linux-gnu/libc.so.6
            #1  0x000055 in Mine.schedule(_:) (self=...) at Sources/Mine/Mine.swift:11
            #2  0x000055 in closure #1 in static RuleCatalogue.cancellation () at \
            Conformance/SchedulerConformance/Rules/CancellationRules.swift:151
            """
        #expect(
            HangDiagnosis.stuckCalls(in: dump) == [
                .init(threadID: 8, threadName: "rule CAN-6", frame: "Mine.schedule(_:) at Mine.swift:11")
            ])
    }

    /// In a test process no debugger may stop every thread: the stuck thread's own stack,
    /// sampled, names the subject's call, past the C library's and the Dispatch frames it
    /// waits in and above the suite's frames that called it.
    @Test(.disabled(if: ThreadSanitizerBuild.isEnabled, "the sanitizer holds a blocked thread's signals back"))
    func aBlockedThreadsSampledStackNamesTheSubjectsCall() throws {
        let parked = Parked()
        let id = Lock<Int32?>(nil)
        let entered = Signal()
        Thread {
            id.withLock { $0 = StackSample.sampleableCurrentThreadID }
            parked.park(entered)
        }.start()
        #expect(entered.wait(.seconds(10)))
        let thread = try #require(id.withLock { $0 })
        #expect(HangDiagnosis.sampledStuckFrame(of: thread) == "Parked.park(_:)")
        // Sampled again: the thread took the signal and went back to its wait.
        #expect(HangDiagnosis.sampledStuckFrame(of: thread) == "Parked.park(_:)")
        parked.gate.signal()
        #expect(HangDiagnosis.sampledStuckFrame(of: -1) == nil)
    }

    @Test func onlyAModuleOutsideTheSuiteAndItsLibrariesIsTheSubjects() {
        func subjects(_ mangled: String) -> Bool {
            HangDiagnosis.module(ofMangled: mangled).map(HangDiagnosis.isSubjects) == true
        }
        #expect(subjects("$s4Mine6ParkedC4parkyyF"))
        #expect(!subjects("$s20SchedulerConformance11RuleContextC4holdyyF"))
        #expect(!subjects("$s8Dispatch0A9SemaphoreC4waityyF"))
        #expect(!subjects("$sSa6appendyyxnF"), "the standard library's")
        #expect(!subjects("pthread_mutex_lock"))
    }
}

/// A subject's method that waits, for the sampled stack to find.
final class Parked: Sendable {
    let gate = DispatchSemaphore(value: 0)

    @inline(never) func park(_ entered: Signal) {
        entered.fire()
        gate.wait()
    }
}
