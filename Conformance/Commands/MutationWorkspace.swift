import ArgumentParser
import Foundation
import SchedulerConformance
import SchedulerProbes
import SchedulerVocabulary
import Subprocess

/// Where `conformance mutate` builds: a copy of the package under its scratch folder, whose
/// target's sources are replaced by their schemata. The user's tree is only ever read.
/// Files are copied only when they differ, so a second run rebuilds only what changed.
struct MutationWorkspace {
    /// The package mutated, and the folder the run keeps its copy, build and maps in.
    let package: URL
    let scratch: URL
    let target: String
    /// The target's folder, relative to the package.
    let targetPath: String
    let configuration: String
    let product: String

    var copy: URL { scratch.appending(path: "package", directoryHint: .isDirectory) }
    var schemata: URL { scratch.appending(path: "schemata", directoryHint: .isDirectory) }
    /// The tool built from the mutated copy.
    var tool: String { copy.appending(path: ".build/\(configuration)/\(product)").path }

    /// A failure of the run itself (a build that cannot be fixed by dropping mutants, a
    /// missing target): one message, exit 1.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A compiler error at a place in a file.
    struct CompileError: Equatable {
        var path: String
        var line: Int
        var column: Int
        var message: String
    }

    /// The folder of `target` in the package at `package`, as SwiftPM describes it. SwiftPM
    /// works in a scratch folder of its own under `scratch`: the package's `.build` may be
    /// locked by the `swift test` or `swift run` this command runs under.
    static func targetPath(of target: String, in package: URL, scratch: URL) throws -> String {
        let described = try Shell.run(
            "swift",
            [
                "package", "--package-path", package.path, "--scratch-path", scratch.appending(path: "describe").path,
                "describe", "--type", "json",
            ],
            what: "describe the package")
        struct Description: Decodable {
            struct Target: Decodable {
                var name: String
                var path: String
            }
            var targets: [Target]
        }
        let json = described.drop { $0 != "{" }
        guard let description = try? JSONDecoder().decode(Description.self, from: Data(json.utf8)) else {
            throw Failure(description: "cannot read `swift package describe` of \(package.path)")
        }
        guard let found = description.targets.first(where: { $0.name == target }) else {
            throw ValidationError(
                """
                no target '\(target)' in \(package.path); it has \
                \(description.targets.map(\.name).sorted().joined(separator: ", "))
                """
            )
        }
        return found.path
    }

    /// Brings the copy up to date with the package, with `manifest` as its Package.swift
    /// and `overlay` (path relative to the target's folder → text) over the target's files.
    func synchronise(manifest: String, overlay: [String: String]) throws {
        var wanted: [String: Data] = [:]
        for path in Self.files(under: package, skipping: scratch) {
            wanted[path] = try Data(contentsOf: package.appending(path: path))
        }
        wanted["Package.swift"] = Data(manifest.utf8)
        for (path, text) in overlay { wanted[targetPath + "/" + path] = Data(text.utf8) }
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: copy, withIntermediateDirectories: true)
        for path in Self.files(under: copy, skipping: nil) where wanted[path] == nil {
            try fileManager.removeItem(at: copy.appending(path: path))
        }
        for (path, data) in wanted {
            let url = copy.appending(path: path)
            if (try? Data(contentsOf: url)) == data { continue }
            try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        }
    }

    /// Every file under `root`, relative to it, without build folders, version control,
    /// SwiftPM's own state and `skipping`.
    static func files(under root: URL, skipping: URL?) -> [String] {
        let root = root.standardizedFileURL
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey])
        else { return [] }
        var found: [String] = []
        for case let url as URL in walker {
            let name = url.lastPathComponent
            let isDirectory = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            if isDirectory {
                if name == ".build" || name.hasPrefix(".build-") || name.hasPrefix(".build_") || name == ".git"
                    || name == ".swiftpm" || url.standardizedFileURL.path == skipping?.standardizedFileURL.path
                {
                    walker.skipDescendants()
                }
                continue
            }
            found.append(String(url.standardizedFileURL.path.dropFirst(root.path.count + 1)))
        }
        return found
    }

    /// Builds `--target` (to find the mutants the compiler refuses, quickly) or the tool.
    /// Warnings are suppressed: schemata are full of code that never runs.
    func build(targetOnly: Bool) throws -> [CompileError] {
        let errors = try buildOnce(targetOnly: targetOnly)
        // Errors only in files outside the copy (a dependency by path) are no mutant's: the
        // copy's build state is stale (SwiftPM does not always notice a file added to a
        // dependency since the last build). One clean build settles it.
        guard !errors.isEmpty, errors.allSatisfy({ !$0.path.hasPrefix(copy.path) }) else { return errors }
        try? FileManager.default.removeItem(at: copy.appending(path: ".build"))
        return try buildOnce(targetOnly: targetOnly)
    }

    private func buildOnce(targetOnly: Bool) throws -> [CompileError] {
        let selection = targetOnly ? ["--target", target] : ["--product", product]
        let result = try Shell.execute(
            "swift",
            ["build", "--package-path", copy.path, "-c", configuration] + selection + [
                "-Xswiftc", "-suppress-warnings",
            ])
        if result.succeeded { return [] }
        let errors = Self.compileErrors(in: result.output)
        if errors.isEmpty {
            throw Failure(description: "the build of the mutated copy failed:\n" + String(result.output.suffix(4000)))
        }
        return errors
    }

    /// `path:line:column: error: message` lines of a compiler's output.
    static func compileErrors(in output: String) -> [CompileError] {
        output.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
            guard parts.count == 5, parts[0].hasPrefix("/"), let row = Int(parts[1]), let column = Int(parts[2]),
                parts[3].trimmingCharacters(in: .whitespaces) == "error"
            else { return nil }
            return CompileError(
                path: String(parts[0]), line: row, column: column,
                message: parts[4].trimmingCharacters(in: .whitespaces))
        }
    }

    /// The mutants to blame for `errors`: for each error in a rewritten file, the
    /// innermost mutants whose code spans its line. Nil when an error is in no mutant's
    /// code, which dropping mutants cannot fix.
    func culprits(of errors: [CompileError], in manifest: MutantManifest) -> Set<Int>? {
        var blamed: Set<Int> = []
        let targetFolder = copy.appending(path: targetPath).standardizedFileURL.path + "/"
        for error in errors {
            guard error.path.hasPrefix(targetFolder) else { return nil }
            let file = String(error.path.dropFirst(targetFolder.count))
            let spanning = manifest.mutants.filter {
                $0.file == file && $0.schemata.start[0] <= error.line && error.line <= $0.schemata.end[0]
            }
            guard let smallest = spanning.map({ $0.schemata.size.lines * 100_000 + $0.schemata.size.columns }).min()
            else { return nil }
            blamed.formUnion(
                spanning.filter { $0.schemata.size.lines * 100_000 + $0.schemata.size.columns == smallest }.map(\.id))
        }
        return blamed
    }
}

/// Runs build tools for `conformance mutate`, collecting what they print.
enum Shell {
    struct Outcome {
        var succeeded: Bool
        var output: String
    }

    /// Runs `command` (a path, or a name found on PATH); standard error is merged into the output.
    static func execute(_ command: String, _ arguments: [String]) throws -> Outcome {
        let outcome: Result<Outcome, any Error> = runBlocking {
            do {
                let run = try await Subprocess.run(
                    command.contains("/") ? .path(.init(command)) : .name(command), arguments: .init(arguments),
                    output: .string(limit: 1 << 26), error: .combinedWithOutput)
                return .success(Outcome(succeeded: run.terminationStatus.isSuccess, output: run.standardOutput))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let result): return result
        case .failure(let error):
            throw MutationWorkspace.Failure(description: "cannot run \(command): \(error)")
        }
    }

    /// Runs `command` and returns its output, or throws with the output when it fails.
    static func run(_ command: String, _ arguments: [String], what: String) throws -> String {
        let result = try execute(command, arguments)
        guard result.succeeded else {
            throw MutationWorkspace.Failure(
                description: "cannot \(what) (\(command) \(arguments.joined(separator: " "))):\n"
                    + String(result.output.suffix(4000)))
        }
        return result.output
    }
}
