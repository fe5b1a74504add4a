import Testing

@testable import MutationSchemata

/// What is left unmutated (types, left-out clauses, exempt declarations, unchanged lines) and
/// how the mutants are identified and switched.
extension SchemataTests {
    @Test("integer constants change by one, except in types, patterns, attributes and raw values")
    func offByOne() {
        let source = """
            enum E: Int { case a = 1 }
            @available(macOS 15, *)
            func f(x: Int) -> Int {
                switch x {
                case 2: return 0x0f
                default: return x + 3
                }
            }
            """
        let (_, mutants) = schemata(source, operators: [.offByOne])
        #expect(mutants.map(\.original) == ["0x0f", "3"])
        #expect(mutants.map(\.mutated) == ["0x10", "4"])
    }

    @Test("code in a clause the build leaves out is not mutated, nor is the condition")
    func inactiveClauses() {
        let source = """
            func f() {
            #if SANITIZER && os(Linux)
                a()
            #else
                b()
            #endif
            }
            """
        #expect(schemata(source, operators: [.removeCall]).mutants.map(\.original) == ["b()"])
        #expect(
            schemata(source, operators: [.removeCall, .logicalConnector], defined: ["SANITIZER"]).mutants.map(
                \.original)
                == ["a()"])
    }

    @Test("a declaration marked mutation-exempt gets no mutants, nor does anything inside it; its neighbours do")
    func exemptDeclarations() {
        let source = """
            struct S {
                /// Converts.
                // mutation-exempt: no scheduler calls it
                static func convert(_ a: Int) -> Bool { a < 1 }
                func kept(_ a: Int) -> Bool { a < 1 }
            }
            """
        #expect(schemata(source, operators: [.relationalBoundary]).mutants.map(\.context) == ["S.kept(_:)"])
    }

    @Test("excluded IDs are left out and the others keep theirs")
    func exclusionKeepsIDs() {
        let source = "func f(a: Int) -> Bool { a < 1 && a > 2 }"
        let all = schemata(source).mutants
        let kept = schemata(source, excluded: [all[0].id]).mutants
        #expect(kept.map(\.id) == all.dropFirst().map(\.id))
    }

    @Test("only changed lines are mutated when lines are given")
    func changedLinesOnly() {
        let source = """
            func f() {
                a()
                b()
            }
            """
        #expect(schemata(source, operators: [.removeCall], lines: [3]).mutants.map(\.original) == ["b()"])
    }

    @Test("twins in one declaration are told apart by occurrence")
    func occurrences() {
        let (_, mutants) = schemata("func f() { a(); a() }", operators: [.removeCall])
        #expect(mutants.map(\.occurrence) == [1, 2])
        #expect(mutants[0].key != mutants[1].key)
    }

    @Test("each mutant's span covers its markers, nested ones inside the outer")
    func spans() {
        let (text, mutants) = schemata(
            "func f(a: Int) -> Bool {\n    a < 1 && a > 2\n}", operators: [.relationalBoundary, .logicalConnector])
        let outer = mutants.first { $0.operator == .logicalConnector }!
        for inner in mutants where inner.operator == .relationalBoundary {
            #expect(outer.schemata.contains(line: inner.schemata.start[0], column: inner.schemata.start[1]))
        }
        let line = text.split(separator: "\n", omittingEmptySubsequences: false)[outer.schemata.start[0] - 1]
        #expect(Array(line.utf8)[(outer.schemata.start[1] - 1)...].starts(with: Array("/*M\(outer.id){*/".utf8)))
    }

    @Test("the switch file maps the coverage file and names the active mutant's variable")
    func switchFile() {
        let text = Schemata.switchFile(maximumID: 12)
        #expect(text.contains("getenv(\"SCHEDULER_MUTANT\")"))
        #expect(text.contains("mmap(nil, 13,"))
        #expect(text.contains("id <= 12"))
        // An unguarded section yields its core inside, a bounded number of times.
        #expect(text.contains("__schedulerMutantNoise.wrappingSubtract(1, ordering: .relaxed).oldValue > 0"))
    }

    @Test("a copied manifest's relative path dependencies become absolute, URL ones stay")
    func absolutizedManifest() {
        let manifest = """
            let package = Package(dependencies: [
                .package(name: "Suite", path: "../.."),
                .package(url: "https://example.invalid/x", from: "1.0.0"),
                .package(path: "/already/absolute"),
            ])
            """
        let rewritten = PackageManifest.absolutizingPathDependencies(in: manifest, origin: "/work/pkg")
        #expect(rewritten.contains(#".package(name: "Suite", path: "/work/pkg/../..")"#))
        #expect(rewritten.contains(#".package(url: "https://example.invalid/x", from: "1.0.0")"#))
        #expect(rewritten.contains(#".package(path: "/already/absolute")"#))
    }
}
