import Testing

@testable import MutationSchemata

/// The schemata of one file with every operator, or only `operators`.
func schemata(
    _ source: String, operators: Set<MutationOperator> = Set(MutationOperator.allCases), excluded: Set<Int> = [],
    defined: Set<String> = [], lines: Set<Int>? = nil
) -> (text: String, mutants: [Mutant]) {
    let options = Schemata.Options(
        operators: operators, changedLines: lines.map { ["File.swift": $0] }, excluded: excluded,
        conditions: CompilationConditions(defined: defined))
    let (outputs, manifest) = Schemata.generate(files: [(path: "File.swift", text: source)], options: options)
    return (outputs.first?.text ?? source, manifest.mutants)
}

@Suite("Mutant schemata")
struct SchemataTests {
    @Test("a relational operator gets its boundary twin behind the switch, and the report shows the source")
    func relationalBoundary() {
        let (text, mutants) = schemata("func f(a: Int, b: Int) -> Bool { a < b }", operators: [.relationalBoundary])
        #expect(mutants.count == 1)
        #expect(mutants[0].original == "a < b")
        #expect(mutants[0].mutated == "a <= b")
        #expect(mutants[0].context == "f(a:b:)")
        #expect(text.contains("(/*M1{*/__schedulerMutant(1) ? a <= b : a < b/*}M1*/)"))
    }

    @Test("code in a static or global stored property's initializer runs once per process; in a body, it does not")
    func runsOnce() {
        let source = """
            let global = 1 << 2
            struct S {
                static let bit = 1 << 3
                static let table: [Int] = { [1 << 4] }()
                static let later: () -> Int = { 1 << 5 }
                static var computed: Int { 1 << 6 }
                let instance = 1 << 7
                func f() -> Int { 1 << 8 }
            }
            """
        let (_, mutants) = schemata(source, operators: [.offByOne])
        let once = Dictionary(
            mutants.map { ($0.original + "@" + String($0.line), $0.runsOnce) }, uniquingKeysWith: { a, _ in a })
        #expect(once["2@1"] == true)
        #expect(once["3@3"] == true)
        #expect(once["4@4"] == true)
        #expect(once["5@5"] == false)
        #expect(once["6@6"] == false)
        #expect(once["7@7"] == false)
        #expect(once["8@8"] == false)
    }

    @Test("the 1 of `1 << n` is left alone: its successor is the mutant of n")
    func shiftedOneIsNotDuplicated() {
        let (_, mutants) = schemata("let a = 1 << 4\nlet b = 1 << k\nlet c = 3 << 4", operators: [.offByOne])
        #expect(mutants.map(\.original) == ["4", "1", "3", "4"])
    }

    @Test("a condition is negated with try kept in front, where a ternary allows it")
    func negatedConditionKeepsTry() {
        let source = """
            func f() throws {
                if try check() { go() }
            }
            """
        let (text, mutants) = schemata(source, operators: [.negateCondition])
        #expect(mutants.map(\.mutated) == ["try !(check())"])
        #expect(text.contains("if try (/*M1{*/__schedulerMutant(1) ? !(check()) : (check())/*}M1*/)"))
    }

    @Test("a call statement is removable, a fatalError and a value-returning one-liner are not")
    func removedCalls() {
        let source = """
            func f() {
                signal()
                fatalError("no")
            }
            func g() -> Int { compute() }
            """
        let (text, mutants) = schemata(source, operators: [.removeCall])
        #expect(mutants.map(\.original) == ["signal()"])
        #expect(text.contains("if !__schedulerMutant(1) { signal() }"))
    }

    @Test(
        "a closure's one call is removed as an expression of its own type, so a closure whose result is used keeps it")
    func closureResultKeepsItsType() throws {
        let source = """
            func f(_ x: Int?) -> Int? {
                run { signal() }
                return x.flatMap { try? compute($0) }
            }
            """
        let (text, mutants) = schemata(source, operators: [.removeCall])
        let signal = try #require(mutants.first { $0.original == "signal()" })
        let compute = try #require(mutants.first { $0.original == "try? compute($0)" })
        #expect(text.contains("(__schedulerMutant(\(signal.id)) ? () : (signal()))"))
        #expect(text.contains("try? (__schedulerMutant(\(compute.id)) ? () : (compute($0)))"))
        #expect(!text.contains("if !__schedulerMutant(\(compute.id))"))
    }

    @Test("adjacent calls swap as pairs that do not overlap")
    func swappedStatements() {
        let source = """
            func f() {
                a()
                b()
                c()
            }
            """
        let (_, mutants) = schemata(source, operators: [.swapStatements])
        #expect(mutants.map(\.mutated) == ["b(); a()"])
    }

    @Test("an initializer's independent stores are not swapped: their order cannot be observed")
    func commutingStoresAreLeftAlone() {
        let source = """
            struct S {
                init(a: Int, b: Int) {
                    self.a = a
                    self.b = b
                    c = a
                    d = c + 1
                }
            }
            """
        let (_, mutants) = schemata(source, operators: [.swapStatements])
        #expect(mutants.map(\.original) == ["c = a; d = c + 1"], "the second pair reads what the first stored")
    }

    @Test("a parameter named like the property is the parameter; literal stores to one value's members commute")
    func parametersAndLiteralStores() {
        let source = """
            final class Q {
                init(name: String) {
                    self.name = name
                    self.queue = Queue(label: name)
                }
                func reset() {
                    state.continuation = nil
                    state.wakeUp = nil
                }
                func reset2() {
                    state.continuation = nil
                    other.wakeUp = nil
                }
            }
            """
        let (_, mutants) = schemata(source, operators: [.swapStatements])
        #expect(mutants.map(\.original) == ["state.continuation = nil; other.wakeUp = nil"])
    }

    @Test("an atomic's ordering is weakened by repeating the whole call, which must keep constant orderings")
    func weakenedOrdering() {
        let (text, mutants) = schemata(
            "func f() -> Int { x.load(ordering: .acquiring) + x.load(ordering: .relaxed) }",
            operators: [.weakenOrdering])
        #expect(mutants.count == 1)
        #expect(text.contains("__schedulerMutant(1) ? x.load(ordering: .relaxed) : x.load(ordering: .acquiring)"))
    }

    @Test("a read-only withLock body, or one in an initializer, is not unguarded: no rule could tell")
    func unguardOnlyWhereVisible() {
        let source = """
            final class C {
                init() { state.withLock { $0.count = 1 } }
                var count: Int { state.withLock { $0.queue.count } }
                var empty: Bool { state.withLock { s in s.action == nil && s.count != 0 } }
                func take() -> Int? { state.withLock { $0.handle.take() } }
                func bump() { state.withLock { s in s.count += 1 } }
                func swap() { state.withLock { Swift.swap(&$0.a, &$0.b) } }
                func set() { state.withLock { $0.flag = true } }
            }
            """
        let (_, mutants) = schemata(source, operators: [.unguardLock])
        #expect(mutants.map(\.context) == ["C.take()", "C.bump()", "C.swap()", "C.set()"])
    }

    @Test("withLock's body runs on a copy read and written back under two acquisitions")
    func unguardedLock() {
        let (text, mutants) = schemata("func f() { state.withLock { $0.count += 1 } }", operators: [.unguardLock])
        #expect(mutants.count == 1)
        #expect(
            text.contains(
                """
                __schedulerMutantUnguarded(read: { state.withLock { $0 } }, write: { __value in state.withLock { $0 = \
                __value } }, { $0.count += 1 })
                """
            ))
    }

    @Test("an early return goes only into functions that return nothing, and is its own statement")
    func earlyReturn() {
        let source = """
            func f() { go() }
            func g() -> Int { 1 }
            """
        let (text, mutants) = schemata(source, operators: [.earlyReturn])
        #expect(mutants.map(\.context) == ["f()"])
        #expect(text.contains("if __schedulerMutant(1) { return }/*}M1*/; go()"))
    }
}
