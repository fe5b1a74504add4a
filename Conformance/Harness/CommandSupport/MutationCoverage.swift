import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The worker's side of `conformance mutate`'s coverage run. A schemata build marks, in a
/// file mapped by every process of the run, one byte per mutant whose code was reached;
/// the worker clears the map before each rule and, after it, appends the rule's reached
/// mutants to `<map>.log` as `subject<TAB>rule<TAB>id,id,…`. What the worker reached
/// before its first rule (making the subject, entering the loop that drives the main
/// queue) can change every rule that follows, so it is logged once with the rule `*`.
/// Outside a coverage run (`SCHEDULER_MUTANT_COVERAGE` unset) every call does nothing.
package enum MutationCoverage {
    /// The variable naming the map; the schemata's switch file reads the same one.
    package static let variable = "SCHEDULER_MUTANT_COVERAGE"

    private nonisolated(unsafe) static let map: UnsafeMutableRawBufferPointer? = {
        guard let path = ProcessInfo.processInfo.environment[variable] else { return nil }
        let descriptor = open(path, O_RDWR)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return nil }
        let length = Int(status.st_size)
        guard let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED
        else { return nil }
        return UnsafeMutableRawBufferPointer(start: mapped, count: length)
    }()

    /// The rule name under which what the worker reached before its first rule is logged.
    package static let beforeEveryRule = "*"

    private static let started = Atomic<Bool>(false)

    /// Forgets what earlier rules reached; before the first rule, logs what the worker
    /// reached until then for every rule of `subject`.
    package static func ruleWillStart(subject: String) {
        guard let map else { return }
        if !started.exchange(true, ordering: .relaxed) { ruleFinished(subject: subject, rule: beforeEveryRule) }
        map.initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// Appends what `rule` reached on `subject` to the log.
    package static func ruleFinished(subject: String, rule: String) {
        guard let map, let path = ProcessInfo.processInfo.environment[variable] else { return }
        let reached = map.indices.filter { map[$0] != 0 }.map(String.init).joined(separator: ",")
        let line = Data("\(subject)\t\(rule)\t\(reached)\n".utf8)
        let log = path + ".log"
        if !FileManager.default.fileExists(atPath: log) {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
        }
        guard let handle = FileHandle(forWritingAtPath: log) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: line)
    }
}
