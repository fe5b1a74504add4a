import ArgumentParser
import Foundation
import SchedulerProbes
import SchedulerStress
import Schedulers

extension StressCommand {
    /// The child of `instructions`: runs one hot path, under callgrind.
    struct MeasurePath: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "measure-path", abstract: "Run one hot path (the child of `instructions`).",
            shouldDisplay: false)

        @Option var path: String
        @Option var operations: Int

        func run() throws {
            guard let hotPath = HotPath(rawValue: path) else { throw ValidationError("unknown path \(path)") }
            do { try hotPath.run(operations) } catch {
                print("error: \(error)")
                throw ExitCode(StressExit.failed)
            }
        }
    }
}
