import Foundation
import SchedulerDiagnostics
import SchedulerProbes

#if canImport(Glibc)
    import Glibc
#endif

/// What a hang report says about the threads a hung rule names: where each is, what the
/// kernel says it is doing, and whose lock it waits on: "stuck in `Mine.schedule(_:)` at
/// Mine.swift:53, called from producer thread 2 (blocked), waiting on a lock held by thread
/// "worker" in `closure #1 in Mine.schedule(_:)` at Mine.swift:54".
struct HangReport {
    private(set) var threads: [(name: String, threadID: Int32?)] = []
    private var activities: [Int32: String] = [:]
    private var waits: [Int32: HangDiagnosis.LockWait] = [:]

    /// Reads `threads`' state now: before a debugger stops and resumes them, which wakes a
    /// blocked thread for a moment.
    init(_ threads: [(name: String, threadID: Int32?)]) { add(threads) }

    /// Adds `more` threads, their state read now.
    mutating func add(_ more: [(name: String, threadID: Int32?)]) {
        let ids = more.compactMap(\.threadID)
        activities.merge(HangDiagnosis.activities(of: ids)) { first, _ in first }
        for id in ids { waits[id] = HangDiagnosis.LockWait(of: id) }
        threads += more
    }

    /// The threads' kernel IDs, and after them those of the lock holders they wait on.
    func ids(in dump: String) -> [Int32] {
        let own = threads.compactMap(\.threadID)
        let holders = own.compactMap { id in
            waits[id]?.owner(inPthreadMutex: HangDiagnosis.waitsInPthreadMutex(id, in: dump))
        }
        return own + holders.filter { !own.contains($0) }
    }

    /// What the report says of the threads, those in the same place and state together: from
    /// `dump` where the process could take one, else from the threads' own stacks sampled in
    /// this process (no file and line). A thread gone by now is said to have returned late;
    /// one outside the subject's code, to wait there; one whose stack could not be read, not
    /// to have returned from the subject.
    func places(in dump: String?) -> [String] {
        var groups: [(key: String, names: [String], say: (_ names: String, _ many: Bool) -> String)] = []
        for thread in threads {
            let (key, say) = phrase(for: thread, in: dump)
            if let index = groups.firstIndex(where: { $0.key == key }) {
                groups[index].names.append(thread.name)
            } else {
                groups.append((key, [thread.name], say))
            }
        }
        return groups.map { $0.say($0.names.joined(separator: ", "), $0.names.count > 1) }
    }

    /// What the report says of `thread`, given its name (or the names of all the threads in
    /// the same place), and a key that is the same for those.
    private func phrase(
        for thread: (name: String, threadID: Int32?), in dump: String?
    ) -> (key: String, say: (_ names: String, _ many: Bool) -> String) {
        let place: HangDiagnosis.SampledStack =
            thread.threadID.map { id in
                dump.map { HangDiagnosis.place(of: id, in: $0) } ?? HangDiagnosis.sampledStack(of: id)
            } ?? .unreadable
        let lock = thread.threadID.flatMap { holder(ofTheLock: $0, in: dump) }.map {
            ", waiting on a lock held by \($0)"
        }
        let activity = thread.threadID.flatMap { activities[$0] }
        let tail = (activity.map { " (\($0))" } ?? "") + (lock ?? "")
        let key = "\(place)\(tail)"
        switch place {
        case .inside(let frame):
            let stuck = HangDiagnosis.placeWord(activity: activity)
            return (key, { names, _ in "\(stuck) \(Self.quoted(frame)), called from \(names)\(tail)" })
        case .outsideTheSubject: return (key, { "\($0)\(tail) \($1 ? "wait" : "waits") outside the subject" })
        case .unreadable:
            // Gone by now: it came back after the bound, as a slow subject's threads do.
            if lock == nil, thread.threadID.map(CorePinning.isRunning) == .some(nil) {
                return ("gone", { names, _ in "\(names) returned only after the bound" })
            }
            return (key, { names, _ in "\(names)\(tail) never returned from its calls into the subject" })
        }
    }

    /// `frame` in backticks, its file and line after them: "`Mine.run()` (Mine.swift:42)".
    private static func quoted(_ frame: String) -> String {
        guard let at = frame.range(of: " at ", options: .backwards) else { return "`\(frame)`" }
        return "`\(frame[..<at.lowerBound])` (\(frame[at.upperBound...]))"
    }

    /// The thread holding the lock thread `id` waits on, named as the report names it, with
    /// the subject's frame it is in where `dump` has it. A `pthread_mutex_t` is trusted only
    /// where the dump shows the wait inside `pthread_mutex_lock`.
    private func holder(ofTheLock id: Int32, in dump: String?) -> String? {
        let inPthreadMutex = dump.map { HangDiagnosis.waitsInPthreadMutex(id, in: $0) } ?? false
        guard let owner = waits[id]?.owner(inPthreadMutex: inPthreadMutex) else { return nil }
        let name =
            threads.first { $0.threadID == owner }?.name
            ?? "thread \"\(HangDiagnosis.LockWait.name(of: owner) ?? String(owner))\""
        let frame = dump.flatMap { HangDiagnosis.stuckFrame(of: owner, in: $0) }.map { " in \(Self.quoted($0))" } ?? ""
        return name + frame
    }
}

extension HangDiagnosis {
    /// A futex wait of a thread of this process, read from the kernel's view of its system
    /// call (`/proc/self/task/<id>/syscall`): the lock's address, from which its holder can
    /// be read. Linux only.
    struct LockWait {
        private let address: UInt64
        private let command: Int
        private let waiter: Int32

        /// `futex`'s number, which Glibc's module does not export (`SYS_futex` is a macro of
        /// a macro).
        #if arch(arm64)
            private static let futexCall = 98
        #else
            private static let futexCall = 202
        #endif

        /// Thread `id`'s wait; nil where it is not in a futex wait or that cannot be read.
        init?(of id: Int32) {
            #if os(Linux)
                guard let call = try? String(contentsOfFile: "/proc/self/task/\(id)/syscall", encoding: .utf8)
                else { return nil }
                let fields = call.split(separator: " ")
                guard fields.count > 2, Int(fields[0]) == Self.futexCall,
                    let address = UInt64(fields[1].dropFirst(2), radix: 16),
                    let operation = Int(fields[2].dropFirst(2), radix: 16)
                else { return nil }
                self.address = address
                // Without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME.
                command = operation & 0x7f
                waiter = id
            #else
                return nil
            #endif
        }

        /// The kernel ID of the thread holding the lock, if it is one whose holder is known: a
        /// priority-inheriting futex (Swift's `Mutex` on Linux) keeps its holder's ID in its
        /// word; a `pthread_mutex_t` (`NSLock`'s) keeps it in its third field, read only when
        /// `inPthreadMutex` says the wait is one (a plain futex word may be anything: a
        /// semaphore, a condition). Nil for other waits, or a holder that is gone.
        func owner(inPthreadMutex: Bool) -> Int32? {
            let word: UInt64
            switch command {
            case 6, 13: word = address  // FUTEX_LOCK_PI, FUTEX_LOCK_PI2
            // FUTEX_WAIT or FUTEX_WAIT_BITSET on the mutex's `__lock`; `__owner` is 8 bytes on.
            case 0 where inPthreadMutex, 9 where inPthreadMutex: word = address + 8
            default: return nil
            }
            guard let value = Self.read(word) else { return nil }
            let owner = Int32(bitPattern: value & 0x3fff_ffff)  // FUTEX_TID_MASK
            guard owner > 0, owner != waiter, Self.name(of: owner) != nil else { return nil }
            return owner
        }

        /// Thread `id`'s name as the kernel has it; nil when it is gone.
        static func name(of id: Int32) -> String? {
            (try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The 32-bit word at `address` of this process, read through `/proc/self/mem` so
        /// that an address no longer mapped is an error, not a crash.
        private static func read(_ address: UInt64) -> UInt32? {
            #if os(Linux)
                let file = open("/proc/self/mem", O_RDONLY)
                guard file >= 0 else { return nil }
                defer { close(file) }
                var value: UInt32 = 0
                let count = withUnsafeMutableBytes(of: &value) {
                    pread(file, $0.baseAddress, 4, off_t(Int64(bitPattern: address)))
                }
                return count == 4 ? value : nil
            #else
                return nil
            #endif
        }
    }
}
