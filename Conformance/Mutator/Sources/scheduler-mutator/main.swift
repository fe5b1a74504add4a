import ArgumentParser
import Foundation
import MutationSchemata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The mutator `conformance mutate` runs: reads a target's sources, writes their schemata.
struct SchedulerMutator: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scheduler-mutator",
        abstract: "Write mutant schemata of a Swift target's sources (run by `conformance mutate`).",
        subcommands: [Generate.self, AbsolutizeDependencies.self, Operators.self]
    )
}

extension SchedulerMutator {
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "schemata",
            abstract: "Rewrite the target's files into OUT, with the switch file and mutants.json.")

        @Option(help: "The target's source folder.") var targetDir: String
        @Option(help: "Where to write the rewritten files (same relative paths).") var out: String
        @Option(name: .customLong("file"), help: "Only files matching this glob, relative to the target (repeatable).")
        var files: [String] = []
        @Option(name: .customLong("operator"), help: "Only these operators (repeatable); `operators` lists them.")
        var operators: [String] = []
        @Option(help: "A JSON file {\"File.swift\": [line, …]}: mutate only these lines.") var changedLines: String?
        @Option(help: "Mutant IDs to leave out (comma-separated): those an earlier build could not compile.")
        var exclude: String = ""
        @Option(name: .customLong("define"), help: "A compilation condition the build sets (repeatable).")
        var defines: [String] = []

        func validate() throws {
            for name in operators where MutationOperator(rawValue: name) == nil {
                throw ValidationError(
                    """
                    unknown operator '\(name)'; use one of \
                    \(MutationOperator.allCases.map(\.rawValue).joined(separator: ", "))
                    """
                )
            }
        }

        func run() throws {
            let root = URL(fileURLWithPath: targetDir, isDirectory: true).standardizedFileURL
            let sources = try swiftFiles(under: root).filter { path in
                files.isEmpty || files.contains { fnmatch($0, path, 0) == 0 }
            }
            let texts = try sources.map {
                (path: $0, text: try String(contentsOf: root.appending(path: $0), encoding: .utf8))
            }
            var options = Schemata.Options(conditions: CompilationConditions(defined: Set(defines)))
            if !operators.isEmpty { options.operators = Set(operators.compactMap(MutationOperator.init(rawValue:))) }
            options.excluded = Set(exclude.split(separator: ",").compactMap { Int($0) })
            if let changedLines {
                let lines = try JSONDecoder().decode(
                    [String: [Int]].self, from: Data(contentsOf: URL(fileURLWithPath: changedLines)))
                options.changedLines = lines.mapValues(Set.init)
            }
            let (outputs, manifest) = Schemata.generate(files: texts, options: options)
            let destination = URL(fileURLWithPath: out, isDirectory: true)
            for output in outputs {
                let url = destination.appending(path: output.path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(output.text.utf8).write(to: url, options: .atomic)
            }
            let maximumID = manifest.mutants.map(\.id).max() ?? 0
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
            try Data(Schemata.switchFile(maximumID: maximumID).utf8)
                .write(to: destination.appending(path: Schemata.switchFileName), options: .atomic)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(manifest).write(to: destination.appending(path: "mutants.json"), options: .atomic)
            FileHandle.standardError.write(
                Data(
                    "scheduler-mutator: \(manifest.mutants.count) mutants in \(outputs.count) of \(texts.count) files\n"
                        .utf8))
        }

        private func swiftFiles(under root: URL) throws -> [String] {
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
                throw ValidationError("cannot read \(root.path)")
            }
            var found: [String] = []
            for case let url as URL in walker where url.pathExtension == "swift" {
                found.append(String(url.standardizedFileURL.path.dropFirst(root.path.count + 1)))
            }
            return found.sorted()
        }
    }

    struct AbsolutizeDependencies: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "absolutize-dependencies",
            abstract: "Rewrite a copied Package.swift's `.package(path:)` to absolute paths from ORIGIN.")

        @Option(help: "The copied Package.swift.") var manifest: String
        @Option(help: "The folder the original Package.swift is in.") var origin: String

        func run() throws {
            let url = URL(fileURLWithPath: manifest)
            let text = try String(contentsOf: url, encoding: .utf8)
            let rewritten = PackageManifest.absolutizingPathDependencies(in: text, origin: origin)
            try Data(rewritten.utf8).write(to: url, options: .atomic)
        }
    }

    struct Operators: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the mutation operators.")

        func run() {
            for kind in MutationOperator.allCases {
                print("\(kind.rawValue.padding(toLength: 21, withPad: " ", startingAt: 0)) \(kind.summary)")
            }
        }
    }
}

SchedulerMutator.main()
