import SchedulerProbes
import Schedulers

/// Scenarios on a composite or serial disposable: members added (or set), removed, the
/// whole disposed and read, from several threads at once; every scenario ends by disposing
/// the whole, after which no member may still be owed a dispose.
public enum DisposableScenarios {
    /// A scenario of 2–3 threads × 1–4 calls after adding 1–2 members.
    public static func generate(_ random: inout SplitMix64, serial: Bool) -> Scenario<DisposableOperation> {
        var made = 0
        func add() -> DisposableOperation {
            made += 1
            return .add(made)
        }
        func call(_ random: inout SplitMix64) -> DisposableOperation {
            switch random.next() % 10 {
            case 0..<3 where !serial && made > 0: .remove(random.action(of: made))
            case 3: .dispose
            case 4: .read
            case 5: .isDisposed
            default: add()
            }
        }
        let initial = (0..<1 + Int(random.next() % 2)).map { _ in add() }
        let parallel = (0..<2 + Int(random.next() % 2)).map { _ in
            (0..<1 + Int(random.next() % 4)).map { _ in call(&random) }
        }
        return Scenario(initial: initial, parallel: parallel, final: [.dispose, .settled])
    }

    /// A scenario on a handle whose one member is there from the start (an action
    /// disposable's action): 2–3 threads × 1–3 disposes and reads.
    public static func generateDisposeOnly(_ random: inout SplitMix64) -> Scenario<DisposableOperation> {
        let parallel = (0..<2 + Int(random.next() % 2)).map { _ in
            (0..<1 + Int(random.next() % 3)).map { _ -> DisposableOperation in
                random.next() % 3 == 0 ? .isDisposed : .dispose
            }
        }
        return Scenario(initial: [], parallel: parallel, final: [.dispose, .settled])
    }

    /// What a call acts on: every call but a read changes the set.
    public static func aim(_ operation: DisposableOperation) -> Jitter.Aim {
        switch operation {
        case .add, .remove, .dispose: .shared
        case .read, .isDisposed, .memberDisposed, .settled: .nothing
        }
    }

    /// The kind of a call that changes the set, for counting meetings by pair: two removes
    /// shift each other's positions, an add and a dispose race for the newcomer, and each such
    /// pair must meet often enough on its own.
    public static func kind(_ operation: DisposableOperation) -> String? {
        switch operation {
        case .add: "add"
        case .remove: "remove"
        case .dispose: "dispose"
        case .read, .isDisposed, .memberDisposed, .settled: nil
        }
    }

    /// A fresh composite from `make`, whose members record each dispose they get.
    public static func compositeInstance<Composite: DisposableSet>(_ make: () -> Composite) -> ScenarioInstance<
        DisposableModel
    > {
        let composite = make()
        let keys = Box<[Int: Composite.Key]>([:])
        let members = Members()
        return ScenarioInstance(
            initial: DisposableModel(serial: false),
            perform: { operation in
                switch operation {
                case .add(let k):
                    guard let key = composite.add(members.make(k)) else { return [(operation, .refused)] }
                    keys.update { $0[k] = key }
                    return [(operation, .added)]
                case .remove(let k):
                    guard let key = keys.value[k] else { return [(operation, .noKey)] }
                    composite.remove(key)
                case .dispose: composite.dispose()
                case .read: return [(operation, .count(composite.count))]
                case .isDisposed: return [(operation, .isDisposed(composite.isDisposed))]
                case .settled: return [(operation, .owed([]))]
                case .memberDisposed: preconditionFailure("\(operation) is observed, never performed")
                }
                return [(operation, .done)]
            },
            finish: { () throws(RuleFailure) in (members.observed, []) })
    }

    /// A fresh serial disposable from `make`, whose members record each dispose they get;
    /// made holding member 0 when `holdingFirst`.
    public static func serialInstance<Handle: ReplaceableDisposable>(
        holdingFirst: Bool = false, _ make: ((any Disposable)?) -> Handle
    ) -> ScenarioInstance<DisposableModel> {
        let members = Members()
        let handle = make(holdingFirst ? members.make(0) : nil)
        return ScenarioInstance(
            initial: DisposableModel(serial: true, holding: holdingFirst ? 0 : nil),
            perform: { operation in
                switch operation {
                case .add(let k): handle.inner = members.make(k)
                case .dispose: handle.dispose()
                case .read: return [(operation, .holds((handle.inner as? Member)?.number))]
                case .isDisposed: return [(operation, .isDisposed(handle.isDisposed))]
                case .settled: return [(operation, .owed([]))]
                case .remove, .memberDisposed: preconditionFailure("\(operation) is not a serial disposable's call")
                }
                return [(operation, .done)]
            },
            finish: { () throws(RuleFailure) in (members.observed, []) })
    }

    /// A fresh action disposable from `make`, whose action is member 0: it must run once,
    /// on the first dispose, whichever threads dispose at once.
    public static func actionInstance(
        _ make: (_ action: @escaping @Sendable () -> Void) -> any Disposable
    ) -> ScenarioInstance<DisposableModel> {
        let members = Members()
        let action = members.make(0)
        let handle = make { action.dispose() }
        return ScenarioInstance(
            initial: DisposableModel(serial: true, holding: 0),
            perform: { operation in
                switch operation {
                case .dispose: handle.dispose()
                case .isDisposed: return [(operation, .isDisposed(handle.isDisposed))]
                case .settled: return [(operation, .owed([]))]
                case .add, .remove, .read, .memberDisposed:
                    preconditionFailure("\(operation) is not an action disposable's call")
                }
                return [(operation, .done)]
            },
            finish: { () throws(RuleFailure) in (members.observed, []) })
    }

    /// A member that records every dispose it gets, a second one included: disposing is
    /// idempotent for users, but a set that disposes a member twice has lost track of it.
    private final class Member: Disposable {
        let number: Int
        let log: Box<[HistoryEntry<DisposableOperation, DisposableOutcome>]>
        init(_ number: Int, log: Box<[HistoryEntry<DisposableOperation, DisposableOutcome>]>) {
            self.number = number
            self.log = log
        }
        func dispose() {
            let invoked = HistoryClock.tick()
            let subject = HistoryEntry<DisposableOperation, DisposableOutcome>.subject
            log.update {
                $0.append(
                    HistoryEntry(
                        .memberDisposed(number), .done, invoked: invoked, returned: HistoryClock.tick(), thread: subject
                    )
                )
            }
        }
        var isDisposed: Bool { log.value.contains { $0.operation == .memberDisposed(number) } }
    }

    /// The members of one instance and what they recorded.
    private final class Members: Sendable {
        private let log = Box<[HistoryEntry<DisposableOperation, DisposableOutcome>]>([])
        func make(_ number: Int) -> Member { Member(number, log: log) }
        var observed: [HistoryEntry<DisposableOperation, DisposableOutcome>] { log.value }
    }
}
