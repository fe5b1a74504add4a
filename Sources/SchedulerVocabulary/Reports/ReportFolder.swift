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

/// A generated part of a hand-written document (the README's matrix and stress tables),
/// between `<!-- name:begin -->` and `<!-- name:end -->`.
public struct GeneratedSection: Sendable {
    /// Why a section could not be replaced.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// The marker name, such as `matrix`.
    public let name: String

    public init(name: String) { self.name = name }

    /// Replaces what stands between the markers of `file` with `text`, atomically.
    /// - Throws: ``Problem`` when the file cannot be read or lacks the markers, or the write fails.
    public func replace(with text: String, in file: URL) throws(Problem) {
        let begin = "<!-- \(name):begin -->"
        let end = "<!-- \(name):end -->"
        guard let document = try? String(contentsOf: file, encoding: .utf8) else {
            throw Problem(description: "cannot read '\(file.path)'")
        }
        guard let start = document.range(of: begin),
            let stop = document.range(of: end, range: start.upperBound..<document.endIndex)
        else {
            throw Problem(description: "'\(file.path)' has no \(begin) … \(end) markers")
        }
        let updated = document[..<start.upperBound] + "\n" + text + "\n" + document[stop.lowerBound...]
        do { try Data(updated.utf8).write(to: file, options: .atomic) } catch {
            throw Problem(description: "cannot write '\(file.path)': \(error.localizedDescription)")
        }
    }
}
