import Foundation

/// The folder a command writes its reports to.
public enum ReportFolder {
    /// Creates `folder` if needed and proves it writable, so a bad path fails at once with
    /// one line, before any work, instead of after the whole run.
    /// - Returns: nil when writable, else the one-line reason.
    public static func problem(with folder: URL) -> String? {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let probe = folder.appendingPathComponent(".write-probe-\(ProcessInfo.processInfo.processIdentifier)")
            try Data().write(to: probe)
            try FileManager.default.removeItem(at: probe)
            return nil
        } catch {
            return "report folder '\(folder.path)' is not writable: \(error.localizedDescription)"
        }
    }
}
