import Dispatch
import Foundation
import SchedulerProbes
import Schedulers
import Testing

@testable import CommandSupport
@testable import SchedulerConformance

/// A dead worker is explained by what the runtime said and where the subject's code was,
/// read from the Swift backtracer's report as a release build prints it.
@Suite struct CrashDiagnosisTests {
    @Test func aReleasePreconditionNamesTheFailureAndTheSubjectsFrame() {
        let diagnosis = CrashDiagnosis(
            standardError: """
                *** Signal 4: Backtracing from 0x5617d43cfd8b... done ***

                *** Swift runtime failure: precondition failure ***

                Platform: x86_64 Linux (Debian GNU/Linux 12 (bookworm))

                Thread 0 "worker" crashed:

                  0 [inlined] [system] 0x00005617d43cfd8b Swift runtime failure: precondition failure in tool at //<compiler-generated>
                  1                    0x00005617d43cfd8b MockClock.advance(to:) + 11 in tool at /src/Sources/Mock/Clock.swift:42:9
                  2                    0x00005617d43cfe00 closure #1 in clockRules() + 80 in tool at /src/.build/checkouts/scheduler-behaviour/Conformance/SchedulerConformance/Rules/ClockRules.swift:80:5
                ...

                Backtrace took 0.37s
                """)
        #expect(diagnosis.summary == "crashed in MockClock.advance(to:) at Clock.swift:42: precondition failure")
    }

    @Test func aFatalErrorKeepsItsTextAndSkipsTheRuntimesFrames() {
        let diagnosis = CrashDiagnosis(
            standardError: """
                Mock/Clock.swift:12: Fatal error: the clock went back to 1

                *** Signal 4: Backtracing from 0x7f77e50f9361... done ***

                *** Program crashed: Illegal instruction at 0x00007f77e50f9361 ***

                Thread 3 crashed:

                  0  0x00007f77e50f9361 _assertionFailure(_:_:file:line:flags:) + 225 in libswiftCore.so
                  1  0x000055b1b21cbf9e Sleeper.wake() + 14 in tool at /src/Sources/Mock/Sleeper.swift:7:3

                Backtrace took 0.01s
                """)
        #expect(diagnosis.message == "Fatal error: the clock went back to 1")
        #expect(diagnosis.frame == "Sleeper.wake() at Sleeper.swift:7")
    }

    @Test func aClosuresFrameKeepsItsWholeSymbol() {
        let diagnosis = CrashDiagnosis(
            standardError: """
                *** Program crashed: Illegal instruction at 0x000055b1b21cbf9e ***
                Thread 2 crashed:
                  0  0x000055b1b21cbf9e closure #1 in TestClock.advance(to:) + 30 in tool at /src/Mock/Clock.swift:9:5
                  1  0x000055b1b21cbfa0 partial apply for closure #2 in Mine.run() + 12 in tool
                """)
        #expect(diagnosis.frame == "closure #1 in TestClock.advance(to:) at Clock.swift:9")
        let withoutLines = CrashDiagnosis(
            standardError: """
                Thread 2 crashed:
                  0  0x000055b1b21cbfa0 closure #2 in Mine.run() + 12 in tool
                """)
        #expect(withoutLines.frame == "closure #2 in Mine.run()")
    }

    @Test func aSignalWithoutMessageIsNamedByTheBacktracersLine() {
        let diagnosis = CrashDiagnosis(
            standardError: """
                *** PROGRAM CRASHED: Bad pointer dereference at 0x00007fff43be4ff8 ***
                Thread 0 "worker" crashed:
                  0  0x000055a84bd87f9e MockClock.sleep(until:tolerance:) + 14 in tool at /src/Mock/Clock.swift:2:62
                """)
        #expect(
            diagnosis.summary
                == "crashed in MockClock.sleep(until:tolerance:) at Clock.swift:2: Bad pointer dereference at 0x00007fff43be4ff8"
        )
    }

    /// A stack overflow on a thread without an alternate signal stack dies silently; the
    /// supervisor runs it again under gdb, whose stack of the dying thread is read here.
    @Test func aSilentCrashRunAgainUnderGdbNamesTheFrameAndTheRecursion() {
        let recursion = (4..<40).map {
            "#\($0)  0x0000555555c741d9 in RecursesForever.schedule(_:) (action=..., self=...) at /pkg/Sources/Subjects/Subjects.swift:91"
        }
        let stack =
            ([
                "Thread 8 \"worker\" received signal SIGSEGV, Segmentation fault.", "Thread 1 (LWP 0):",
                "#0  0x00007ffff62dc378 in _int_malloc (av=0x7fffec000030, bytes=32) at ./malloc/malloc.c:1357",
                "#1  0x00007ffff62dd9c9 in __GI___libc_malloc (bytes=32) at ./malloc/malloc.c:3323",
                "#2  0x00007ffff7c6fa6f in swift_slowAlloc () from /opt/swift/usr/lib/swift/linux/libswiftCore.so",
                "#3  0x00007ffff7c6fdc7 in swift_allocObject () from /opt/swift/usr/lib/swift/linux/libswiftCore.so",
            ] + recursion).joined(separator: "\n")
        #expect(
            HangDiagnosis.crashSummary(ofCrashStack: stack)
                == "crashed in RecursesForever.schedule(_:) at Subjects.swift:91: SIGSEGV, Segmentation fault, a runaway recursion (36 of its last 40 frames)"
        )
        let once = stack.split(separator: "\n").prefix(7).joined(separator: "\n")
        #expect(
            HangDiagnosis.crashSummary(ofCrashStack: once)
                == "crashed in RecursesForever.schedule(_:) at Subjects.swift:91: SIGSEGV, Segmentation fault")
    }

    /// The same from a real release build: a small program compiled with `-O`, whose
    /// precondition fails, read from what the runtime's backtracer really printed.
    @Test func aRealReleaseBuildsTrapIsNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("release-trap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("Clock.swift")
        try """
        struct MockClock {
            var now = 5
            @inline(never) mutating func advance(to target: Int) {
                precondition(target >= now, "the clock cannot go back")
                now = target
            }
        }
        var clock = MockClock()
        clock.advance(to: CommandLine.arguments.count - 1)
        print(clock.now)
        """.write(to: source, atomically: true, encoding: .utf8)
        let program = folder.appendingPathComponent("trap").path
        let compiled = try Self.run("/usr/bin/env", ["swiftc", "-O", "-g", source.path, "-o", program])
        try #require(compiled.status == 0, "swiftc failed: \(compiled.error)")
        // The backtracer on, whatever this process runs with (`make tsan` turns it off).
        let crashed = try Self.run(program, [], environment: ["SWIFT_BACKTRACE": "enable=yes"])
        #expect(crashed.status != 0)
        #expect(
            CrashDiagnosis(standardError: crashed.error).summary
                == "crashed in MockClock.advance(to:) at Clock.swift:4: precondition failure", "\(crashed.error)")
    }

    /// Runs `executable` to its end, with `environment` over this process's; its exit status
    /// and standard error.
    private static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> (status: Int32, error: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func standardErrorWithoutAReportGivesNothing() {
        #expect(CrashDiagnosis(standardError: "Backtrace took 0.37s\n").summary == nil)
    }
}

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
        #3  0x000055 in closure #1 in RuleContext.onThreads(_:spread:_:) () at /src/Conformance/SchedulerConformance/RuleContext.swift:310
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
            #2  0x000055 in static RuleWorker.run(subject:rules:) (subject=...) at Conformance/Commands/RuleWorker.swift:18
            Thread 2 (Thread 0x7f01 (LWP 8) "rule CAN-6"):
            #0  0x00007f in __futex_abstimed_wait_common () from /lib/x86_64-linux-gnu/libc.so.6
            #1  0x000055 in Mine.schedule(_:) (self=...) at Sources/Mine/Mine.swift:11
            #2  0x000055 in closure #1 in static RuleCatalogue.cancellation () at Conformance/SchedulerConformance/Rules/CancellationRules.swift:151
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
private final class Parked: Sendable {
    let gate = DispatchSemaphore(value: 0)

    @inline(never) func park(_ entered: Signal) {
        entered.fire()
        gate.wait()
    }
}
