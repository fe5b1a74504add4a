import ArgumentParser
import CommandSupport
import Foundation
import SchedulerProbes
import SchedulerStress
import SchedulerVocabulary

extension StressCommand {
    /// Proves that allocation counts are right across threads.
    struct CalibrateAllocations: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "calibrate-allocations",
            abstract:
                "Allocate a known number of objects on several threads and read the count back (must be within 1%).",
            discussion:
                """
                Runs in a child process on jemalloc when it is installed. Exit status: 0 within 1% (or no jemalloc, \
                reported as allocator system), 1 outside, 64 bad usage.
                """
        )

        @Option(help: "Allocating threads.")
        var threads = 4

        @Option(help: "Objects per thread.")
        var objects = 100_000

        @Option(help: "auto (jemalloc when installed), jemalloc, or system.")
        var allocator = "auto"

        @Flag(help: .hidden)
        var child = false

        mutating func validate() throws {
            guard (1...256).contains(threads) else { throw ValidationError("--threads must be between 1 and 256") }
            guard (1_000...10_000_000).contains(objects) else {
                throw ValidationError("--objects must be between 1000 and 10000000")
            }
            try JemallocLibrary.validate(allocator: allocator)
        }

        func run() throws {
            guard child || allocator == "system" || JemallocLibrary.path == nil else {
                let arguments = [
                    "calibrate-allocations", "--child", "--threads", String(threads), "--objects", String(objects),
                ]
                let exit = runBlocking {
                    await WorkerProcess.run(
                        executable: CommandLine.arguments[0], arguments: arguments,
                        environment: ["LD_PRELOAD": JemallocLibrary.path!, "MALLOC_CONF": "tcache:false"],
                        onLine: { print($0) }, deadline: { nil }
                    )
                }
                if !exit.succeeded { throw ExitCode(StressExit.failed) }
                return
            }
            let result = AllocationCalibration.run(threads: threads, objectsPerThread: objects)
            print(result.summary)
            if !result.passed { throw ExitCode(StressExit.failed) }
        }
    }
}
