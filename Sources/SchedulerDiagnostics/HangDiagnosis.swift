import Foundation
import SchedulerProbes

#if canImport(Runtime)
    import Runtime
#endif

/// Where a hung rule's threads are, read from a thread dump (gdb's `thread apply all bt`,
/// demangled): the stuck threads' stacks first, and the first frame of each that is the
/// subject's code rather than the C library's, the runtime's or the suite's: the call that
/// never returned.
package enum HangDiagnosis {
    /// `dump` with the stacks of the threads whose kernel IDs are `ids` first, in that order,
    /// then those with a frame of the subject's or the suite's, then the libraries' idle ones
    /// (Dispatch's workers, an I/O monitor): all of the first, of the others as many as fit in
    /// `cap` characters, and a line saying how many were left out.
    package static func ordered(_ dump: String, first ids: [Int32], cap: Int = 64 << 10) -> String {
        let blocks = threadBlocks(dump)
        let wanted = ids.compactMap { id in blocks.first { $0.id == id } }
        let rest = blocks.filter { block in !wanted.contains { $0.id == block.id } }
        let involved = rest.filter { block in frames(of: block, in: dump).contains { $0.isSubjects || $0.isSuites } }
        let idle = rest.filter { block in !involved.contains { $0.id == block.id } }
        var kept = wanted.map(\.text)
        var size = kept.reduce(0) { $0 + $1.count + 1 }
        var left = 0
        for block in involved + idle {
            guard size + block.text.count < cap else {
                left += 1
                continue
            }
            kept.append(block.text)
            size += block.text.count + 1
        }
        if left > 0 {
            kept.append("(\(left) more threads left out, past \(cap >> 10) KB; idle library threads go first)")
        }
        return kept.joined(separator: "\n")
    }

    /// A thread that the suite's code called the subject from and that is still inside it.
    package struct StuckCall: Equatable, Sendable {
        package var threadID: Int32?
        /// The thread's name as the dump gives it.
        package var threadName: String
        /// The subject's innermost frame.
        package var frame: String

        package init(threadID: Int32?, threadName: String, frame: String) {
            (self.threadID, self.threadName, self.frame) = (threadID, threadName, frame)
        }
    }

    /// Every thread of `dump` whose stack has a frame of the suite's below one of the
    /// subject's: the calls into the subject that had not returned. With `calledOrNot`,
    /// every thread with a frame of the subject's, such as one the subject started.
    package static func stuckCalls(in dump: String, calledOrNot: Bool = false) -> [StuckCall] {
        threadBlocks(dump).compactMap { block in
            let frames = frames(of: block, in: dump)
            guard let inner = frames.firstIndex(where: \.isSubjects),
                calledOrNot || frames[inner...].contains(where: \.isSuites)
            else { return nil }
            let header = block.text.prefix { $0 != "\n" }
            let name = header.split(separator: "\"").dropFirst().first.map(String.init) ?? "thread"
            return StuckCall(threadID: block.id, threadName: name, frame: frames[inner].described)
        }
    }

    /// The first frame of thread `id`'s stack in the subject's code, as `Type.method(_:)`
    /// (with `at File.swift:42` when the dump has lines); nil when the thread is not in the
    /// dump or no frame qualifies.
    package static func stuckFrame(of id: Int32, in dump: String) -> String? {
        if case .inside(let frame) = place(of: id, in: dump) { return frame }
        return nil
    }

    /// Where thread `id` is in `dump`: in the subject's code, waiting in the suite's, or not
    /// in the dump (gone by the time it was taken).
    package static func place(of id: Int32, in dump: String) -> SampledStack {
        guard let block = threadBlocks(dump).first(where: { $0.id == id }) else { return .unreadable }
        return frames(of: block, in: dump).first(where: \.isSubjects).map { .inside($0.described) }
            ?? .outsideTheSubject
    }

    /// Whether thread `id` of `dump` waits inside `pthread_mutex_lock`, whose lock word says
    /// who holds it.
    package static func waitsInPthreadMutex(_ id: Int32, in dump: String) -> Bool {
        threadBlocks(dump).first { $0.id == id }?.text.contains("pthread_mutex_lock") ?? false
    }

    /// What sampling a thread's stack found (see ``sampledStack(of:)``).
    package enum SampledStack: Equatable {
        /// The thread did not answer: a sanitizer, another platform, or a thread gone.
        case unreadable
        /// No frame of the stack is the subject's: the thread waits in the suite's code.
        case outsideTheSubject
        /// The subject's innermost frame, as `Type.method(_:)`.
        case inside(String)
    }

    /// Thread `id`'s stack, sampled inside this process (no debugger, no stacks kept): how a
    /// hang found by `assertConformance` names the call a thread is stuck in.
    package static func sampledStack(of id: Int32) -> SampledStack {
        #if canImport(Runtime)
            guard #available(macOS 26, *), let symbols = StackSample.symbols(ofThread: id) else { return .unreadable }
            for raw in symbols where module(ofMangled: raw).map(isSubjects) == true {
                let name = SymbolicatedBacktrace.Symbol(
                    imageIndex: 0, imageName: "", rawName: raw, offset: 0, sourceLocation: nil
                ).name
                if ["thunk", "partial apply", "protocol witness", "merged "].contains(where: name.contains) {
                    continue
                }
                return .inside(name)
            }
            return .outsideTheSubject
        #else
            return .unreadable
        #endif
    }

    /// The subject's innermost frame on thread `id`'s sampled stack, if it has one.
    package static func sampledStuckFrame(of id: Int32) -> String? {
        if case .inside(let frame) = sampledStack(of: id) { return frame }
        return nil
    }

    /// The suite's own modules.
    private static let suiteModules: Set<String> = [
        "SchedulerConformance", "SchedulerConformanceTesting", "SchedulerDiagnostics", "SchedulerProbes",
        "SchedulerVocabulary", "SchedulerStress", "SchedulerHarness", "CommandSupport", "ConformanceCommands",
        "StressCommands",
    ]

    /// The libraries under every subject: a frame of theirs is where a subject waits, not
    /// what it is.
    private static let libraryModules: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationInternationalization", "Dispatch", "Synchronization",
        "XCTest", "Testing", "Runtime",
    ]

    /// Whether code of `module` is the subject's: neither the suite's nor a library's.
    package static func isSubjects(_ module: String) -> Bool {
        !suiteModules.contains(module) && !libraryModules.contains(module)
    }

    /// The module of a mangled Swift symbol (`$s` + the module name's length and the name +
    /// …); nil for C symbols and the standard library's (`$ss…`, `$sSc…`: substitutions,
    /// not a module name).
    package static func module(ofMangled mangled: String) -> String? {
        guard mangled.hasPrefix("$s") else { return nil }
        let rest = mangled.dropFirst(2)
        let digits = rest.prefix(while: \.isNumber)
        guard let length = Int(digits), length > 0 else { return nil }
        let module = rest.dropFirst(digits.count).prefix(length)
        return module.count == length ? String(module) : nil
    }

    /// Where a crash re-run under gdb (``ThreadDump/ofCrash(executable:arguments:environment:within:frames:)``)
    /// died: `crashed in Type.method(_:) at File.swift:42: SIGSEGV, Segmentation fault`,
    /// with the recursion named when the same frame fills most of the stack; nil when no
    /// frame is the subject's. `stack` starts with gdb's line naming the signal.
    package static func crashSummary(ofCrashStack stack: String) -> String? {
        guard let frame = stuckFrame(of: 0, in: stack) else { return nil }
        let signal = stack.split(separator: "\n").first.flatMap { line in
            line.range(of: "received signal ").map {
                line[$0.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: ". "))
            }
        }
        let block = threadBlocks(stack).first { $0.id == 0 }
        let all = block.map { frames(of: $0, in: stack) } ?? []
        let repeats = all.filter { $0.described == frame }.count
        let recursion =
            repeats * 2 > all.count && all.count > 8
            ? ", a runaway recursion (\(repeats) of its last \(all.count) frames)" : ""
        return "crashed in \(frame): \(signal ?? "a signal")\(recursion)"
    }

    /// Source folders of the suite's own code and of the libraries it runs on: a frame there
    /// is never the subject's, in a hang's stacks or a crash's backtrace.
    private static let suiteFolders = [
        "/SchedulerConformance/", "/SchedulerConformanceTesting/", "/SchedulerDiagnostics/", "/SchedulerProbes/",
        "/SchedulerVocabulary/", "/CommandSupport/",
        "/Conformance/Commands/", "/Stress/Commands/", "/swift-corelibs-foundation/",
        "/swift-corelibs-libdispatch/", "/swift-argument-parser/",
    ]

    /// Whether `path` lies in the suite's own code or a library under it; a release build
    /// names its sources relative to the package (`Conformance/Commands/…`), a debug build
    /// absolutely.
    package static func isSuites(path: String) -> Bool {
        let rooted = path.hasPrefix("/") ? path : "/" + path
        return suiteFolders.contains(where: rooted.contains)
    }

    /// `File.swift:42` from a frame's `/path/to/File.swift:42:9`.
    package static func fileAndLine(_ path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let parts = file.split(separator: ":")
        return parts.count >= 2 ? "\(parts[0]):\(parts[1])" : file
    }

    /// The frames of `block`. Where the dump has source lines, a frame without one is a
    /// library's or a generic specialised from one (`specialized Collection.map`), not the
    /// subject's, whose code was built with the same lines.
    private static func frames(of block: Block, in dump: String) -> [Frame] {
        let lines = dump.contains(".swift:")
        return block.text.split(separator: "\n").dropFirst().compactMap { Frame(String($0), dumpHasLines: lines) }
    }

    private struct Block {
        var id: Int32?
        var text: String
    }

    /// The dump cut at each `Thread N (… (LWP id) …):` header.
    private static func threadBlocks(_ dump: String) -> [Block] {
        var blocks: [Block] = []
        for line in dump.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Thread ") {
                let id = line.range(of: "(LWP ").flatMap { range in
                    Int32(line[range.upperBound...].prefix { $0.isNumber })
                }
                blocks.append(Block(id: id, text: String(line)))
            } else if !blocks.isEmpty {
                blocks[blocks.count - 1].text += "\n" + line
            }
        }
        return blocks
    }

    /// One `#3  0x… in Symbol (args) at /path/File.swift:42` line of gdb's.
    private struct Frame {
        var symbol: String
        var library: Bool
        var path: String?

        init?(_ line: String, dumpHasLines: Bool) {
            guard line.hasPrefix("#") else { return nil }
            var rest = line.drop { $0 != " " }.drop { $0 == " " }
            if rest.hasPrefix("0x"), let range = rest.range(of: " in ") { rest = rest[range.upperBound...] }
            library = rest.contains(" from /")
            path = rest.range(of: " at ", options: .backwards).map { String(rest[$0.upperBound...]) }
            // The symbol ends where its argument list starts: gdb writes ` (` after it.
            symbol = rest.range(of: " (").map { String(rest[..<$0.lowerBound]) } ?? String(rest)
            if dumpHasLines && path == nil { library = true }
        }

        /// Whether this frame is the suite's own code: a rule, or a helper of the harness.
        var isSuites: Bool {
            if let path { return HangDiagnosis.isSuites(path: path) }
            return Self.suiteSymbols.contains { symbol.contains($0) }
        }

        /// `Type.method(_:)`, with `at File.swift:42` when the dump has lines.
        var described: String { path.map { "\(symbol) at \(HangDiagnosis.fileAndLine($0))" } ?? symbol }

        /// Whether this frame is the subject's: not a library's, not a compiler thunk, not
        /// in the suite's own folders.
        var isSubjects: Bool {
            if library || symbol.hasPrefix("??") || symbol.contains("thunk") || symbol.hasPrefix("__")
                || symbol.hasPrefix("protocol witness")
            {
                return false
            }
            // C frames with lines are the C library's (`./nptl/…`): the subject is Swift.
            if let path, !path.contains(".swift") || HangDiagnosis.isSuites(path: path) {
                return false
            }
            return !(Self.suiteSymbols + Self.entryPoints).contains { symbol.contains($0) }
        }

        /// Where the dump has no lines: the suite's own types.
        static let suiteSymbols = [
            "RuleContext.", "RuleCatalogue.", "Threads.", "ConformanceRunner.", "ClockSession.", "ProbeExecutor.",
        ]
        /// Where every thread starts: neither the subject's nor the suite's.
        /// (`MainThreadScheduler.drain` is how the runner keeps the main thread serving.)
        static let entryPoints = ["Thread.main", "start_thread", "clone", "MainThreadScheduler.drain"]
    }
}
