import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

/// The new-side lines of a `git diff -U0`, per file.
enum ChangedLines {
    /// `+++ b/File.swift` names the file; each `@@ -a,b +c,d @@` adds lines c ..< c+d.
    static func parse(_ diff: String) -> [String: Set<Int>] {
        var lines: [String: Set<Int>] = [:]
        var file: String?
        for line in diff.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("+++ ") {
                let name = line.dropFirst(4)
                file = name == "/dev/null" ? nil : String(name.hasPrefix("b/") ? name.dropFirst(2) : name)
            } else if line.hasPrefix("@@"), let file {
                let fields = line.split(separator: " ")
                guard fields.count >= 3, fields[2].hasPrefix("+") else { continue }
                let range = fields[2].dropFirst().split(separator: ",")
                guard let start = Int(range[0]) else { continue }
                let count = range.count > 1 ? Int(range[1]) ?? 1 : 1
                lines[file, default: []].formUnion(start..<(start + count))
            }
        }
        return lines
    }
}
