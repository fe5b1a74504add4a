/// How a one-thread program's work is counted, the same way by its model and by its run: the
/// k-th schedule of n (its handle's key) and the k-th run of n, each from 0.
struct ProgramNumbering {
    private var schedules: [Int: Int] = [:]
    private var runs: [Int: Int] = [:]

    /// The key of n's next schedule.
    mutating func schedule(_ n: Int) -> ProgramHandleKey {
        defer { schedules[n, default: 0] += 1 }
        return ProgramHandleKey(n: n, instance: schedules[n, default: 0])
    }

    /// The number of n's next run.
    mutating func run(_ n: Int) -> Int {
        defer { runs[n, default: 0] += 1 }
        return runs[n, default: 0]
    }
}
