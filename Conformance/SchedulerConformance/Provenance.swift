import Foundation
import Subprocess

/// What identifies the code and machine behind a report, found once per process.
public enum Provenance {
    /// The commit that was checked: `GITHUB_SHA` or `BUILD_SCM_REVISION` (Bazel's stamp)
    /// when CI sets one, else the git commit of the current directory, with `-dirty` when
    /// tracked files have changes; nil outside a git checkout or without git.
    public static let commit: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let ci = environment["GITHUB_SHA"] ?? environment["BUILD_SCM_REVISION"], !ci.isEmpty { return ci }
        return runBlocking {
            guard let head = await git(["rev-parse", "HEAD"]), !head.isEmpty else { return nil }
            let changes = await git(["status", "--porcelain", "--untracked-files=no"]) ?? ""
            return changes.isEmpty ? head : head + "-dirty"
        }
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
    /// fails or is not installed.
    private static func git(_ arguments: [String]) async -> String? {
        guard let result = try? await Subprocess.run(
            .name("git"), arguments: .init(arguments), output: .string(limit: 1 << 16), error: .discarded
        ), result.terminationStatus.isSuccess else { return nil }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
