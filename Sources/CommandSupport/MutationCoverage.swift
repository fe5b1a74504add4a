import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The worker's side of `conformance mutate`'s coverage run. A schemata build marks, in a
/// file mapped by every process of the run, one byte per mutant whose code was reached;
/// the worker clears the map before each rule and, after it, appends the rule's reached
/// mutants to `<map>.log` as `subject<TAB>rule<TAB>id,id,…`. Outside a coverage run
/// (`SCHEDULER_MUTANT_COVERAGE` unset) both calls do nothing.
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

    /// Forgets what earlier rules reached.
    package static func ruleWillStart() {
        guard let map else { return }
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
