import Foundation
import Schedulers

/// Folders that this test process names under the system's temporary directory, each removed
/// when the process exits.
///
/// A test hands its folder to the child processes it starts and reads their reports after, so
/// the folder has to outlive the code that named it, but not the run: before, every
/// `make test` left its reports, copied executables and workers' folders behind in `/tmp`.
public enum ScratchFolder {
    /// A fresh path `<temporary directory>/<prefix>-<UUID>`, not created (the tools create
    /// their report folders), removed with everything in it when this process exits.
    public static func reserve(_ prefix: String) -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        reserved.withLock { $0.append(folder) }
        return folder
    }

    /// As ``reserve(_:)``, and the folder is created.
    public static func make(_ prefix: String) throws -> URL {
        let folder = reserve(prefix)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private static let reserved: Lock<[URL]> = {
        // Swift Testing has no hook after the last test; the process's exit is the end of the run.
        atexit {
            for folder in ScratchFolder.reserved.withLock({ $0 }) { try? FileManager.default.removeItem(at: folder) }
        }
        return Lock([])
    }()
}
