import Foundation

/// What identifies the code and machine behind a report, found once per process.
public enum Provenance {
    /// The commit that was checked: `GITHUB_SHA` or `BUILD_SCM_REVISION` (Bazel's stamp)
    /// when CI sets one, else the git commit of the current directory, with `-dirty` when
    /// tracked files have changes; nil outside a git checkout or without git.
    public static let commit: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let ci = environment["GITHUB_SHA"] ?? environment["BUILD_SCM_REVISION"], !ci.isEmpty { return ci }
        guard let head = git(["rev-parse", "HEAD"]), !head.isEmpty else { return nil }
        let changes = git(["status", "--porcelain", "--untracked-files=no"]) ?? ""
        return changes.isEmpty ? head : head + "-dirty"
    }()

    /// The compiler this suite was built with.
    public static let compilerVersion: String = {
        #if compiler(>=6.4)
            "6.4 or later"
        #elseif compiler(>=6.3)
            "6.3"
        #elseif compiler(>=6.2)
            "6.2"
        #else
            "6.1 or earlier"
        #endif
    }()

    /// The operating system this was built for (`linux`, `macos`, or `other`).
    public static let platform: String = {
        #if os(Linux)
            "linux"
        #elseif os(macOS)
            "macos"
        #else
            "other"
        #endif
    }()

    /// The CPU architecture this process runs on.
    public static let architecture: String = {
        #if arch(x86_64)
            "x86_64"
        #elseif arch(arm64)
            "arm64"
        #else
            "other"
        #endif
    }()

    /// `git` with `arguments` in the current directory: its trimmed output, or nil when it
    /// fails or is not installed. Foundation's `Process`, waited on synchronously, rather
    /// than swift-subprocess: this runs in a static initializer that async code may reach
    /// first, where blocking on a task of the cooperative pool could deadlock it.
    private static func git(_ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
