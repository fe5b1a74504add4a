import Dispatch
import Foundation
import SchedulerConformance
import SchedulerMutants
import SchedulerProbes
import Schedulers
import TestSupport
import Testing
import XCTest

/// A virtual executor whose drive runs the ready jobs on a private queue of its own
/// (SwiftNIO's `NIOAsyncTestingEventLoop`), all done before the drive returns. Correct, and
/// the other choice from the suite's.
final class PrivateQueueExecutor: SerialExecutor, TaskExecutor {
    private let jobs = Lock<[UnownedJob]>([])
    private let queue = DispatchQueue(label: "private-queue-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
    }

    /// Runs every ready job, those the jobs enqueue included, on the private queue, and
    /// returns once they ran. (Not `queue.sync`, which runs its block on the caller's thread.)
    func drive() {
        let drained = DispatchSemaphore(value: 0)
        queue.async { [self] in
            while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            }
            drained.signal()
        }
        drained.wait()
    }
}

/// EXE-9 holds a driven executor to where it declares its jobs run.
@Suite struct DrivenJobsDeclarationTests {
    @Test func anExecutorThatRunsADrivesJobsOnItsOwnQueuePassesWhenItSaysSo() async throws {
        let subject = ConformanceSubject(name: "private-queue-executor") {
            let executor = PrivateQueueExecutor()
            return ExecutorUnderTest(executor, checksIsolation: false, drive: { executor.drive() })
        }
        let undeclared = try #require(await judge(subject, .exe9)[.exe9])
        #expect(undeclared.status == .failed)
        #expect(undeclared.message?.contains(".drivenJobs(.onItsOwnThread)") == true, "\(undeclared.message ?? "")")
        let declared = try #require(await judge(subject.declaring(.drivenJobs(.onItsOwnThread)), .exe9)[.exe9])
        #expect(declared.status == .passed, "\(declared.message ?? "")")
    }
}

/// A serial executor that runs the highest-priority job queued first, FIFO among equals, as
/// a default actor does: correct, and the other choice from a Dispatch serial queue's.
final class PriorityExecutor: SerialExecutor, TaskExecutor {
    private struct Queued {
        let priority: UInt8
        let sequence: Int
        let job: UnownedJob
    }

    private let queued = Lock<(next: Int, jobs: [Queued])>((0, []))
    private let queue = DispatchQueue(label: "priority-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let priority = job.priority.rawValue
        let job = UnownedJob(job)
        queued.withLock {
            $0.jobs.append(Queued(priority: priority, sequence: $0.next, job: job))
            $0.next += 1
        }
        // One turn of the queue per job; each turn takes the best job waiting then.
        queue.async { [self] in
            let best = queued.withLock { state in
                let index = state.jobs.indices.max {
                    (state.jobs[$0].priority, -state.jobs[$0].sequence) < (
                        state.jobs[$1].priority, -state.jobs[$1].sequence
                    )
                }!
                return state.jobs.remove(at: index).job
            }
            best.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }
}

/// EXE-3 holds a serial executor to the order it declares for jobs of different priorities.
@Suite struct ExecutorOrderDeclarationTests {
    @Test func anExecutorThatOrdersByPriorityPassesWhenItSaysSo() async throws {
        let subject = ConformanceSubject(name: "priority-executor") {
            ExecutorUnderTest(PriorityExecutor(), checksIsolation: false)
        }
        let undeclared = try #require(await judge(subject, .exe3)[.exe3])
        #expect(undeclared.status == .failed)
        #expect(undeclared.message?.contains(".executorOrder(.priority)") == true, "\(undeclared.message ?? "")")
        let declared = try #require(await judge(subject.declaring(.executorOrder(.priority)), .exe3)[.exe3])
        #expect(declared.status == .passed, "\(declared.message ?? "")")
    }

    @Test func aFIFOExecutorFailsThePriorityDeclaration() async throws {
        let fifo = ConformanceSubject(name: "queue-executor") {
            ExecutorUnderTest(QueueScheduler(name: "queue-executor").executor, checksIsolation: true)
        }
        #expect(try #require(await judge(fifo, .exe3)[.exe3]).status == .passed)
        let wrong = try #require(await judge(fifo.declaring(.executorOrder(.priority)), .exe3)[.exe3])
        #expect(wrong.status == .failed)
        #expect(wrong.message?.contains("though the subject declares") == true, "\(wrong.message ?? "")")
    }
}

/// EXE-3 and LIN-4 hold a serial executor to where it declares the jobs its jobs enqueue go.
@Suite struct NestedJobsDeclarationTests {
    /// Runs a job's follow-ups right after it, in their order: correct when declared.
    private static let aheadOfWaiting = Mutants.all.first { $0.subject.name == "mutant-executor-nested-runs-next" }!
        .subject

    @Test func anExecutorThatRunsFollowUpsFirstPassesWhenItSaysSo() async throws {
        let undeclared = try #require(await judge(Self.aheadOfWaiting, .exe3)[.exe3])
        #expect(undeclared.status == .failed)
        #expect(undeclared.message?.contains(".nestedJobs(.aheadOfWaitingJobs)") == true, "\(undeclared.message ?? "")")
        let declared = await judge(Self.aheadOfWaiting.declaring(.nestedJobs(.aheadOfWaitingJobs)), .exe3, .lin4)
        #expect(declared[.exe3]?.status == .passed, "\(declared[.exe3]?.message ?? "")")
        let lin4 = try #require(declared[.lin4])
        #expect(passesOrLacksEvidence(lin4), "\(lin4.status): \(lin4.message ?? "")")
    }

    @Test func aFIFOExecutorFailsTheDeclaration() async throws {
        let fifo = ConformanceSubject(name: "queue-executor") {
            ExecutorUnderTest(QueueScheduler(name: "queue-executor").executor, checksIsolation: true)
        }
        let wrong = await judge(fifo.declaring(.nestedJobs(.aheadOfWaitingJobs)), .exe3, .lin4)
        #expect(wrong[.exe3]?.status == .failed)
        #expect(wrong[.exe3]?.message?.contains("the subject declares") == true, "\(wrong[.exe3]?.message ?? "")")
        // The model, declared so, refuses the follow-up that waited behind the backlog.
        #expect(wrong[.lin4]?.status == .failed, "\(wrong[.lin4]?.status as Any): \(wrong[.lin4]?.message ?? "")")
    }
}
