import Foundation
import PackagePlugin

/// What `swift package conformance` and `swift package stress` share: find the package's tools
/// built on `SchedulerHarness` (executable targets whose name ends in `-conformance`, or
/// `-stress`), build them, and run each with the arguments given, its reports under the
/// package's `Reports` folder.
struct HarnessTool {
    /// The end of a tool's target name: `-conformance` or `-stress`.
    let suffix: String
    /// The command's verb, for messages.
    let verb: String
    /// The folder under `Reports` where a tool's reports go unless `--report-dir` is given.
    let reportFolder: String

    /// Why the command could not run: said in one line, and the command fails.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The plugin's own options, taken out of `arguments`; the rest go to the tool.
    private struct Options {
        var targets: [String] = []
        var configuration = PackageManager.BuildConfiguration.release
        var passed: [String] = []
    }

    func run(context: PluginContext, arguments: [String], packageManager: PackageManager) throws {
        let options = try parse(arguments)
        let tools = try tools(in: context.package, named: options.targets)
        for tool in tools {
            Diagnostics.remark("swift package \(verb): building \(tool) (\(options.configuration))")
            let result = try packageManager.build(
                .product(tool), parameters: .init(configuration: options.configuration, logging: .concise))
            guard result.succeeded,
                let executable = result.builtArtifacts.first(where: { $0.kind == .executable })?.url
            else {
                throw Failure("\(tool) did not build:\n\(result.logText)")
            }
            var toolArguments = options.passed
            if !toolArguments.contains(where: { $0 == "--report-dir" || $0.hasPrefix("--report-dir=") }) {
                let folder = context.package.directoryURL.appending(path: "Reports")
                    .appending(path: tools.count > 1 ? "\(reportFolder)/\(tool)" : reportFolder)
                // `run` is every tool's default command, and the one that writes reports.
                if toolArguments.first.map({ $0.hasPrefix("-") }) ?? true { toolArguments.insert("run", at: 0) }
                if toolArguments.first == "run" { toolArguments += ["--report-dir", folder.path] }
            }
            let status = try launch(executable, toolArguments)
            guard status == 0 else { throw Failure("\(tool) exited with status \(status)") }
        }
    }

    private func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--target":
                guard let name = rest.popFirst(), !name.isEmpty else { throw Failure("--target needs a target's name") }
                options.targets.append(name)
            case "--configuration", "-c":
                switch rest.popFirst() {
                case "debug": options.configuration = .debug
                case "release": options.configuration = .release
                default: throw Failure("--configuration must be debug or release")
                }
            case "--":
                options.passed += rest
                rest = []
            default:
                options.passed.append(argument)
            }
        }
        return options
    }

    /// The executable targets to run: those named, or every one whose name ends in ``suffix``.
    private func tools(in package: Package, named names: [String]) throws -> [String] {
        let executables = package.targets.compactMap { $0 as? SwiftSourceModuleTarget }.filter {
            $0.kind == .executable
        }.map(\.name)
        if !names.isEmpty {
            let unknown = names.filter { !executables.contains($0) }
            guard unknown.isEmpty else {
                throw Failure(
                    """
                    no executable target named \(unknown.joined(separator: ", ")) in \(package.displayName); \
                    executables: \(executables.joined(separator: ", "))
                    """
                )
            }
            return names
        }
        let found = executables.filter { $0.hasSuffix(suffix) }.sorted()
        guard !found.isEmpty else {
            throw Failure(
                """
                \(package.displayName) has no executable target whose name ends in `\(suffix)`: make one on \
                SchedulerHarness (see Getting Started), or name yours with --target
                """
            )
        }
        return found
    }

    /// Runs `executable` with `arguments` in the foreground, its output the terminal's.
    private func launch(_ executable: URL, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
