import SchedulerDiagnostics
import SchedulerVocabulary

/// What a dead worker's standard error says about its death: the runtime's fatal message and
/// the first frame of the crashed thread that is neither the runtime's nor the suite's, read
/// from the Swift backtracer's report (`*** Program crashed: … ***`, `Thread 0 crashed:`).
///
/// The message is the most specific line there is: a `Fatal error: …` (whose text the code
/// chose) over the backtracer's `Swift runtime failure: …` (a release build's precondition)
/// over its `Program crashed: …` (a signal). The line that happens to come last, such as
/// `Backtrace took 0.37s`, is never the answer while any of these is present.
package struct CrashDiagnosis: Equatable, Sendable {
    /// The runtime's words for the death, e.g. `precondition failure`.
    package var message: String?
    /// Where the subject's code was, e.g. `MockClock.advance(to:) at Clock.swift:42`.
    package var frame: String?

    /// Reads `standardError`; nil fields when it holds no such lines.
    package init(standardError: String) {
        let lines = standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        message = Self.message(in: lines)
        frame = Self.firstOwnFrame(in: lines)
    }

    /// `crashed in <frame>: <message>`, or as much of it as is known.
    package var summary: String? {
        switch (frame, message) {
        case (let frame?, let message?): "crashed in \(frame): \(message)"
        case (let frame?, nil): "crashed in \(frame)"
        case (nil, let message?): message
        case (nil, nil): nil
        }
    }

    private static func message(in lines: [String]) -> String? {
        // Swift's own fatal messages: `file:line: Fatal error: text`.
        for marker in ["fatal error:", "precondition failed", "assertion failed"] {
            if let line = lines.first(where: { $0.lowercased().contains(marker) }) {
                let start = line.lowercased().range(of: marker)!.lowerBound
                return String(line[start...])
            }
        }
        for marker in ["*** swift runtime failure:", "*** program crashed:"] {
            if let line = lines.first(where: { $0.lowercased().hasPrefix(marker) }) {
                return line.dropFirst(marker.count).replacingOccurrences(of: "***", with: "")
                    .trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The first frame of the crashed thread with a symbol in the subject's code: frames the
    /// backtracer marks `[system]`, frames in the Swift, C and Dispatch libraries, and the
    /// suite's own frames are skipped.
    private static func firstOwnFrame(in lines: [String]) -> String? {
        guard let crashed = lines.firstIndex(where: { $0.hasPrefix("Thread ") && $0.hasSuffix("crashed:") }) else {
            return nil
        }
        for line in lines[(crashed + 1)...] {
            if line.isEmpty || line == "..." { continue }
            // Frames are numbered; the thread's section ends at the first line that is not one.
            guard let first = line.first, first.isNumber else { break }
            if line.contains("[system]") { continue }
            guard let address = line.range(of: " 0x") else { continue }
            let rest = line[address.upperBound...].drop { !$0.isWhitespace }.trimmingCharacters(in: .whitespaces)
            // `<symbol> + <offset> in <image> at <location>`: a symbol may hold " in " itself
            // (`closure #1 in Clock.advance(to:)`), an image name never does, so the image is
            // what follows the last " in " before the location.
            let at = rest.range(of: " at ", options: .backwards)
            let head = at.map { rest[..<$0.lowerBound] } ?? rest[...]
            guard let inRange = head.range(of: " in ", options: .backwards) else { continue }
            var symbol = String(head[..<inRange.lowerBound])
            if let offset = symbol.range(of: " + ", options: .backwards) {
                symbol = String(symbol[..<offset.lowerBound])
            }
            let image = String(head[inRange.upperBound...])
            let location = at.map { String(rest[$0.upperBound...]) }
            if image.hasPrefix("lib") || image.hasPrefix("ld-") { continue }
            if let location {
                if location.contains("<compiler-generated>")
                    || HangDiagnosis.isSuites(path: location)
                {
                    continue
                }
                return "\(symbol) at \(HangDiagnosis.fileAndLine(location))"
            }
            return symbol
        }
        return nil
    }
}
