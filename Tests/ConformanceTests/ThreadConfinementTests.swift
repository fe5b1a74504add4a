import Foundation
import SchedulerConformance
import Schedulers
import Synchronization
import Testing

/// A subject that claims `threadConfined` must never be called from a thread other than the
/// one that made it: a real one (SwiftNIO's `EmbeddedEventLoop`, a test scheduler with a
/// thread check) traps, and the process dies with every rule after it unreported.
@Suite struct ThreadConfinementTests {
    @Test func noRuleCallsAThreadConfinedSchedulerFromAnotherThread() {
        let log = ForeignCalls()
        let subject = ConformanceSubject(
            name: "thread-checking test scheduler", origin: .thirdParty,
            capabilities: ThreadCheckingScheduler.claims.union(.threadConfined)
        ) { ThreadCheckingScheduler(log: log) }
        let rules = RuleCatalogue.all.filter { $0.kind == .scheduler }
        let results = ConformanceRunner.run(
            subject, rules: rules, timing: .calibrate(scale: 2), willStart: { log.rule = $0.id.rawValue })
        #expect(log.calls.isEmpty, "calls from a foreign thread, by rule: \(log.calls)")
        let broken = results.filter { $0.status.isFailure }
        #expect(broken.isEmpty, "\(broken.map { "\($0.rule) \($0.status): \($0.message ?? "")" })")
        #expect(results.filter { $0.status == .passed }.count >= 20)
    }

    /// The control: without the claim, the rules that race calls from several threads make
    /// them, and the log sees them.
    @Test func theCheckSeesCallsFromOtherThreads() {
        let log = ForeignCalls()
        let subject = ConformanceSubject(
            name: "thread-checking test scheduler", origin: .thirdParty, capabilities: ThreadCheckingScheduler.claims
        ) { ThreadCheckingScheduler(log: log) }
        _ = ConformanceRunner.run(
            subject, rules: [RuleCatalogue.rule(.rec5)], timing: .calibrate(scale: 2),
            willStart: { log.rule = $0.id.rawValue })
        #expect(log.calls["REC-5"]?.isEmpty == false, "\(log.calls)")
    }
}

/// Every call a ``ThreadCheckingScheduler`` got from a thread other than its creator's, by
/// the rule that was running.
private final class ForeignCalls: Sendable {
    private let state = Mutex<(rule: String, calls: [String: Set<String>])>(("", [:]))

    var rule: String {
        get { state.withLock { $0.rule } }
        set { state.withLock { $0.rule = newValue } }
    }
    var calls: [String: Set<String>] { state.withLock { $0.calls } }

    func record(_ call: String) { state.withLock { _ = $0.calls[$0.rule, default: []].insert(call) } }
}

/// The reference test scheduler behind a check of the calling thread on every call, handle
/// and release, as a confined scheduler would trap on.
private final class ThreadCheckingScheduler: VirtualTimeScheduler {
    static let claims = TestScheduler().capabilities
    private let inner = TestScheduler(name: "thread-checked")
    private let check: ThreadCheck

    init(log: ForeignCalls) { check = ThreadCheck(owner: pthread_self(), log: log) }

    deinit { check("release") }

    var name: String { inner.name }
    var capabilities: SchedulerCapabilities { Self.claims }
    var now: SchedulerTime {
        check("now")
        return inner.now
    }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        check("schedule")
        return handle(inner.schedule(wrap(action)))
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        check("schedule(at:)")
        return handle(try inner.schedule(at: deadline, wrap(action)))
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        check("schedule(at:repeatingEvery:)")
        let timer = try inner.schedule(at: deadline, repeatingEvery: interval, leeway: leeway, wrap(action))
        return CheckedHandle(timer, check)
    }

    func step() -> Bool {
        check("step")
        return inner.step()
    }

    func advance(to target: SchedulerTime) {
        check("advance")
        inner.advance(to: target)
    }

    /// Runs `action` as this scheduler, not the one it wraps.
    private func wrap(_ action: @escaping SchedulerAction) -> SchedulerAction {
        { [unowned self] in CurrentScheduler.run(as: self, action) }
    }

    private func handle(_ handle: (any Disposable)?) -> (any Disposable)? {
        handle.map { CheckedHandle($0, check) }
    }
}

/// Records a call made from another thread than `owner`; handles keep one without keeping
/// their scheduler, so that a rule's release of the scheduler is where it would be.
private struct ThreadCheck: Sendable {
    let owner: pthread_t
    let log: ForeignCalls

    func callAsFunction(_ call: String) {
        if pthread_equal(pthread_self(), owner) == 0 { log.record(call) }
    }
}

/// A handle whose every use is checked for its thread.
private final class CheckedHandle: Disposable {
    private let inner: any Disposable
    private let check: ThreadCheck

    init(_ inner: any Disposable, _ check: ThreadCheck) {
        self.inner = inner
        self.check = check
    }

    func dispose() {
        check("dispose")
        inner.dispose()
    }

    var isDisposed: Bool {
        check("isDisposed")
        return inner.isDisposed
    }
}
