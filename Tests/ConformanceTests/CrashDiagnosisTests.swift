import Dispatch
import Foundation
import SchedulerDiagnostics
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

                  0 [inlined] [system] 0x00005617d43cfd8b Swift runtime failure: precondition failure in tool at \
                //<compiler-generated>
                  1                    0x00005617d43cfd8b MockClock.advance(to:) + 11 in tool at \
                /src/Sources/Mock/Clock.swift:42:9
                  2                    0x00005617d43cfe00 closure #1 in clockRules() + 80 in tool at \
                /src/.build/checkouts/scheduler-behaviour/Conformance/SchedulerConformance/Rules/ClockRules.swift:80:5
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
                == """
                crashed in MockClock.sleep(until:tolerance:) at Clock.swift:2: Bad pointer dereference at \
                0x00007fff43be4ff8
                """
        )
    }

    /// A stack overflow on a thread without an alternate signal stack dies silently; the
    /// supervisor runs it again under gdb, whose stack of the dying thread is read here.
    @Test func aSilentCrashRunAgainUnderGdbNamesTheFrameAndTheRecursion() {
        let recursion = (4..<40).map {
            """
            #\($0)  0x0000555555c741d9 in RecursesForever.schedule(_:) (action=..., self=...) at \
            /pkg/Sources/Subjects/Subjects.swift:91
            """
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
                == """
                crashed in RecursesForever.schedule(_:) at Subjects.swift:91: SIGSEGV, Segmentation fault, a \
                runaway recursion (36 of its last 40 frames)
                """
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
