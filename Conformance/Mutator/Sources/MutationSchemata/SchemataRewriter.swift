import SwiftSyntax

/// Rewrites one file bottom-up, wrapping every mutation point in a run-time switch:
/// `(__schedulerMutant(7) ? mutated : original)` for an expression, `if …` for statements.
/// Children are rewritten before their parent, so a mutation inside another's code is kept
/// in both of the outer one's branches; with one mutant on at a time that is exact.
///
/// Every wrapped region is bracketed by `/*M7{*/ … /*}M7*/`, so the lines a compile error
/// points at name the mutant to drop.
final class SchemataRewriter: SyntaxRewriter {
    private let file: String
    private let converter: SourceLocationConverter
    private let operators: Set<MutationOperator>
    private let lines: Set<Int>?
    private let excluded: Set<Int>
    private let conditions: CompilationConditions
    /// The next mutant's ID; IDs are given to every candidate, emitted or excluded, so a
    /// rerun that excludes some keeps the others' IDs.
    private(set) var nextID: Int
    private(set) var mutants: [Mutant] = []

    init(
        file: String, tree: SourceFileSyntax, firstID: Int, operators: Set<MutationOperator>, lines: Set<Int>?,
        excluded: Set<Int>, conditions: CompilationConditions
    ) {
        self.conditions = conditions
        self.file = file
        self.converter = SourceLocationConverter(fileName: file, tree: tree)
        self.nextID = firstID
        self.operators = operators
        self.lines = lines
        self.excluded = excluded
        super.init(viewMode: .sourceAccurate)
    }

    /// The next ID for a candidate of `kind` at `node`, or nil when the candidate is not
    /// wanted (operator not chosen, line not changed) or was excluded by an earlier build.
    private func claim(_ kind: MutationOperator, at node: some SyntaxProtocol) -> (id: Int, line: Int, column: Int)? {
        // Code the build leaves out can never run: a mutant there would only be noise.
        guard operators.contains(kind), conditions.isCompiled(Syntax(node)), !Self.isExempt(Syntax(node)) else {
            return nil
        }
        let location = node.startLocation(converter: converter)
        if let lines, !lines.contains(location.line) { return nil }
        let id = nextID
        nextID += 1
        if excluded.contains(id) { return nil }
        return (id, location.line, location.column)
    }

    private func record(
        _ claim: (id: Int, line: Int, column: Int), _ kind: MutationOperator, at node: some SyntaxProtocol,
        original: String, mutated: String
    ) {
        mutants.append(
            Mutant(
                id: claim.id, file: file, line: claim.line, column: claim.column, operator: kind,
                context: Self.context(of: Syntax(node)), original: Self.oneLine(original),
                mutated: Self.oneLine(mutated), occurrence: 1, schemata: Mutant.Span(start: [0, 0], end: [0, 0]),
                runsOnce: Self.runsOnce(Syntax(node))))
    }

    /// The comment that exempts a declaration and everything in it from mutation; what
    /// follows it on the line is the reason, for the reader of the source.
    public static let exemptionMarker = "mutation-exempt:"

    // MARK: - Expressions

    override func visit(_ node: InfixOperatorExprSyntax) -> ExprSyntax {
        let rewritten = super.visit(node)
        guard let infix = rewritten.as(InfixOperatorExprSyntax.self),
            let symbol = node.operator.as(BinaryOperatorExprSyntax.self)?.operator.text,
            let (kind, replacement) = Self.infixMutation[symbol], let claim = claim(kind, at: node)
        else { return rewritten }
        let mutated = Self.replacingOperator(of: infix, with: replacement)
        record(
            claim, kind, at: node, original: node.trimmedDescription,
            mutated: Self.replacingOperator(of: node, with: replacement))
        return Self.raw(
            Self.choice(claim.id, mutated: mutated, original: infix.trimmedDescription), trivia: Syntax(node))
    }

    private static let infixMutation: [String: (MutationOperator, String)] = [
        "<": (.relationalBoundary, "<="), "<=": (.relationalBoundary, "<"),
        ">": (.relationalBoundary, ">="), ">=": (.relationalBoundary, ">"),
        "&&": (.logicalConnector, "||"), "||": (.logicalConnector, "&&"),
    ]

    override func visit(_ node: ConditionElementSyntax) -> ConditionElementSyntax {
        let rewritten = super.visit(node)
        guard case .expression(let original) = node.condition,
            case .expression(let expression) = rewritten.condition,
            let statement = node.parent?.parent,
            statement.is(IfExprSyntax.self) || statement.is(GuardStmtSyntax.self) || statement.is(WhileStmtSyntax.self),
            let claim = claim(.negateCondition, at: original)
        else { return rewritten }
        // `try` and `await` may not stand inside a ternary's branch: they stay in front.
        let (prefix, inner) = Self.effects(of: expression)
        let source = Self.effects(of: original)
        record(
            claim, .negateCondition, at: original, original: original.trimmedDescription,
            mutated: source.prefix + "!(\(source.inner.trimmedDescription))")
        let text =
            prefix
            + Self.choice(
                claim.id, mutated: "!(\(inner.trimmedDescription))", original: "(\(inner.trimmedDescription))")
        return rewritten.with(\.condition, .expression(Self.raw(text, trivia: Syntax(expression))))
    }

    override func visit(_ node: FunctionCallExprSyntax) -> ExprSyntax {
        let rewritten = super.visit(node)
        guard let call = rewritten.as(FunctionCallExprSyntax.self) else { return rewritten }
        var text = call.trimmedDescription
        var changed = false
        // Each ordering argument is its own mutant; the whole call is repeated in each branch
        // because Synchronization's atomics want their ordering as a compile-time constant.
        for (index, argument) in node.arguments.enumerated() {
            guard let label = argument.label?.text, Self.orderingLabels.contains(label),
                let member = argument.expression.as(MemberAccessExprSyntax.self), member.base == nil,
                Self.strongOrderings.contains(member.declName.baseName.text),
                let claim = claim(.weakenOrdering, at: argument)
            else { continue }
            record(
                claim, .weakenOrdering, at: argument, original: node.trimmedDescription,
                mutated: Self.relaxing(node, at: index).trimmedDescription)
            text = Self.choice(claim.id, mutated: Self.relaxing(call, at: index).trimmedDescription, original: text)
            changed = true
        }
        if let lock = Self.lockedBody(of: node), Self.unguardingIsVisible(node),
            let claim = claim(.unguardLock, at: node),
            let (base, body) = Self.lockedBody(of: call)
        {
            record(
                claim, .unguardLock, at: node, original: node.trimmedDescription,
                mutated: "\(lock.base).withLock(unguarded) \(lock.body)")
            let unguarded =
                "__schedulerMutantUnguarded(read: { \(base).withLock { $0 } }, "
                + "write: { __value in \(base).withLock { $0 = __value } }, \(body))"
            text = Self.choice(claim.id, mutated: unguarded, original: text)
            changed = true
        }
        return changed ? Self.raw(text, trivia: Syntax(node)) : rewritten
    }

    private static let orderingLabels: Set<String> = ["ordering", "successOrdering", "failureOrdering"]
    private static let strongOrderings: Set<String> = [
        "acquiring", "releasing", "acquiringAndReleasing", "sequentiallyConsistent",
    ]

    override func visit(_ node: IntegerLiteralExprSyntax) -> ExprSyntax {
        guard Self.mayChangeConstant(Syntax(node)), !Self.isShiftedOne(node),
            let plusOne = Self.plusOne(node.literal.text),
            let claim = claim(.offByOne, at: node)
        else { return ExprSyntax(node) }
        record(claim, .offByOne, at: node, original: node.literal.text, mutated: plusOne)
        return Self.raw(Self.choice(claim.id, mutated: plusOne, original: node.literal.text), trivia: Syntax(node))
    }

    // MARK: - Statements

    override func visit(_ node: CodeBlockItemListSyntax) -> CodeBlockItemListSyntax {
        let rewritten = super.visit(node)
        guard rewritten.count == node.count else { return rewritten }
        let originals = Array(node)
        var items = Array(rewritten)
        let implicitReturn = originals.count == 1 && Self.valueMayBeImplicitlyReturned(by: node)
        // A closure's one call may be its result: removed as a statement, a closure passed to
        // a generic function (`flatMap { f($0) }`) would still compile, its result now `()`,
        // and the unmutated build would no longer be the package's own.
        let closureResult = originals.count == 1 && node.parent?.is(ClosureExprSyntax.self) == true
        for index in items.indices where !implicitReturn && Self.isRemovableCall(originals[index]) {
            guard let claim = claim(.removeCall, at: originals[index].item) else { continue }
            record(
                claim, .removeCall, at: originals[index], original: originals[index].item.trimmedDescription,
                mutated: "")
            let call = items[index].item.trimmedDescription
            let text = Self.marked(
                claim.id,
                closureResult
                    ? Self.voidOrCall(claim.id, items[index].item)
                    : "if !__schedulerMutant(\(claim.id)) { \(call) }")
            items[index] = Self.item(text, replacing: items[index])
        }
        // Non-overlapping pairs, so each statement is in at most one swap.
        let inInitializer = node.parent?.parent?.is(InitializerDeclSyntax.self) == true
        var result: [CodeBlockItemSyntax] = []
        var index = 0
        while index < items.count {
            if index + 1 < items.count, Self.isSwappable(originals[index]), Self.isSwappable(originals[index + 1]),
                !Self.commute(
                    originals[index], originals[index + 1],
                    initializerParameters: inInitializer ? Self.parameters(of: node) : nil),
                let claim = claim(.swapStatements, at: originals[index].item)
            {
                let first = originals[index].item.trimmedDescription
                let second = originals[index + 1].item.trimmedDescription
                record(
                    claim, .swapStatements, at: originals[index], original: "\(first); \(second)",
                    mutated: "\(second); \(first)")
                let (a, b) = (items[index].item.trimmedDescription, items[index + 1].item.trimmedDescription)
                let text = Self.marked(
                    claim.id, "if __schedulerMutant(\(claim.id)) { \(b)\n\(a) } else { \(a)\n\(b) }")
                result.append(
                    Self.item(text, replacing: items[index]).with(\.trailingTrivia, items[index + 1].trailingTrivia))
                index += 2
            } else {
                result.append(items[index])
                index += 1
            }
        }
        return CodeBlockItemListSyntax(result)
    }

    static let keptCalls: Set<String> = [
        "fatalError", "preconditionFailure", "precondition", "assert", "assertionFailure", "init",
    ]

    override func visit(_ node: FunctionDeclSyntax) -> DeclSyntax {
        let rewritten = super.visit(node)
        guard Self.returnsNothing(node), let body = node.body, !body.statements.isEmpty,
            var function = rewritten.as(FunctionDeclSyntax.self), let newBody = function.body,
            let claim = claim(.earlyReturn, at: body.statements.first!)
        else { return rewritten }
        record(claim, .earlyReturn, at: body.statements.first!, original: "", mutated: "return")
        function.body = newBody.with(\.statements, Self.prependingReturn(claim.id, to: newBody.statements))
        return DeclSyntax(function)
    }

    override func visit(_ node: DeinitializerDeclSyntax) -> DeclSyntax {
        let rewritten = super.visit(node)
        guard let body = node.body, !body.statements.isEmpty,
            var deinitializer = rewritten.as(DeinitializerDeclSyntax.self),
            let newBody = deinitializer.body, let claim = claim(.earlyReturn, at: body.statements.first!)
        else { return rewritten }
        record(claim, .earlyReturn, at: body.statements.first!, original: "", mutated: "return")
        deinitializer.body = newBody.with(\.statements, Self.prependingReturn(claim.id, to: newBody.statements))
        return DeclSyntax(deinitializer)
    }

    // MARK: - Text

    // MARK: - Context

}
