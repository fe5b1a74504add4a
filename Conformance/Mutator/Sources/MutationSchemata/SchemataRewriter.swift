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

    /// Whether `node` is inside a declaration whose leading comments carry
    /// ``exemptionMarker`` (as Stryker's `// Stryker disable` does): code that the rules
    /// cannot reach by design, such as a helper for adapters that no scheduler calls.
    static func isExempt(_ node: Syntax) -> Bool {
        var current: Syntax? = node
        while let syntax = current {
            if syntax.isProtocol((any DeclSyntaxProtocol).self),
                syntax.leadingTrivia.contains(where: { piece in
                    switch piece {
                    case .lineComment(let text), .docLineComment(let text): text.contains(exemptionMarker)
                    default: false
                    }
                })
            {
                return true
            }
            current = syntax.parent
        }
        return false
    }

    /// Whether `node` is evaluated once per process: in the initializer of a static or
    /// global stored property (Swift initializes those lazily, once), and not inside a
    /// closure stored for later (one called where it is written still runs once).
    static func runsOnce(_ node: Syntax) -> Bool {
        var current: Syntax? = node
        while let syntax = current {
            if let closure = syntax.as(ClosureExprSyntax.self) {
                let called = closure.parent?.as(FunctionCallExprSyntax.self)?.calledExpression.id == closure.id
                if !called { return false }
            }
            if syntax.is(FunctionDeclSyntax.self) || syntax.is(InitializerDeclSyntax.self)
                || syntax.is(AccessorBlockSyntax.self) || syntax.is(SubscriptDeclSyntax.self)
                || syntax.is(DeinitializerDeclSyntax.self)
            {
                return false
            }
            if let variable = syntax.as(VariableDeclSyntax.self) {
                let isStatic = variable.modifiers.contains { ["static", "class"].contains($0.name.text) }
                let isGlobal = variable.parent?.parent?.parent?.is(SourceFileSyntax.self) ?? false
                return isStatic || isGlobal
            }
            current = syntax.parent
        }
        return false
    }

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

    private static func replacingOperator(of infix: InfixOperatorExprSyntax, with symbol: String) -> String {
        guard let binary = infix.operator.as(BinaryOperatorExprSyntax.self) else { return infix.trimmedDescription }
        let token = binary.operator.with(\.tokenKind, .binaryOperator(symbol))
        return infix.with(\.operator, ExprSyntax(binary.with(\.operator, token))).trimmedDescription
    }

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

    /// `try`, `try?`, `try!` and `await` in front of an expression, and what they cover.
    private static func effects(of expression: ExprSyntax) -> (prefix: String, inner: ExprSyntax) {
        var prefix = ""
        var inner = expression
        while true {
            if let attempt = inner.as(TryExprSyntax.self) {
                prefix += attempt.tryKeyword.text + (attempt.questionOrExclamationMark?.text ?? "") + " "
                inner = attempt.expression
            } else if let wait = inner.as(AwaitExprSyntax.self) {
                prefix += "await "
                inner = wait.expression
            } else {
                return (prefix, inner)
            }
        }
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

    private static func relaxing(_ call: FunctionCallExprSyntax, at index: Int) -> FunctionCallExprSyntax {
        var arguments = Array(call.arguments)
        let relaxed = ExprSyntax(MemberAccessExprSyntax(name: .identifier("relaxed")))
        arguments[index] = arguments[index].with(\.expression, relaxed)
        return call.with(\.arguments, LabeledExprListSyntax(arguments))
    }

    /// Whether running this `withLock` body on a copy, outside the lock, can be told apart:
    /// not when the body only reads (the copy is a consistent snapshot; what stays is a data
    /// race that only a race detector sees), nor in an initializer, where no other thread
    /// can see the instance yet.
    static func unguardingIsVisible(_ call: FunctionCallExprSyntax) -> Bool {
        guard let closure = lockedClosure(of: call)?.closure else { return true }
        var current = Syntax(call).parent
        while let syntax = current {
            if syntax.is(ClosureExprSyntax.self) || syntax.is(FunctionDeclSyntax.self)
                || syntax.is(AccessorDeclSyntax.self)
            {
                break
            }
            if syntax.is(InitializerDeclSyntax.self) { return false }
            current = syntax.parent
        }
        let parameter: String
        switch closure.signature?.parameterClause {
        case .simpleInput(let names)?: parameter = names.first?.name.text ?? "$0"
        case .parameterClause(let clause)?:
            parameter = (clause.parameters.first?.secondName ?? clause.parameters.first?.firstName)?.text ?? "$0"
        case nil: parameter = "$0"
        }
        let finder = MutationFinder(parameter: parameter)
        finder.walk(closure.statements)
        return finder.mutates
    }

    /// `base.withLock { body }` (trailing or as the one argument): the lock's expression and
    /// the closure.
    private static func lockedClosure(of call: FunctionCallExprSyntax) -> (
        base: ExprSyntax, closure: ClosureExprSyntax
    )? {
        guard let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            member.declName.baseName.text == "withLock", let base = member.base
        else { return nil }
        if let closure = call.trailingClosure, call.arguments.isEmpty, call.additionalTrailingClosures.isEmpty {
            return (base, closure)
        }
        if call.trailingClosure == nil, call.arguments.count == 1, let only = call.arguments.first, only.label == nil,
            let closure = only.expression.as(ClosureExprSyntax.self)
        {
            return (base, closure)
        }
        return nil
    }

    /// ``lockedClosure(of:)`` as text.
    private static func lockedBody(of call: FunctionCallExprSyntax) -> (base: String, body: String)? {
        lockedClosure(of: call).map { ($0.base.trimmedDescription, $0.closure.trimmedDescription) }
    }

    override func visit(_ node: IntegerLiteralExprSyntax) -> ExprSyntax {
        guard Self.mayChangeConstant(Syntax(node)), !Self.isShiftedOne(node),
            let plusOne = Self.plusOne(node.literal.text),
            let claim = claim(.offByOne, at: node)
        else { return ExprSyntax(node) }
        record(claim, .offByOne, at: node, original: node.literal.text, mutated: plusOne)
        return Self.raw(Self.choice(claim.id, mutated: plusOne, original: node.literal.text), trivia: Syntax(node))
    }

    /// The `1` of `1 << n` with a literal `n`: `2 << n` is `1 << (n + 1)`, the mutant of `n`,
    /// so mutating both would count one program twice.
    private static func isShiftedOne(_ node: IntegerLiteralExprSyntax) -> Bool {
        guard node.literal.text == "1", let infix = node.parent?.as(InfixOperatorExprSyntax.self),
            infix.leftOperand.id == node.id,
            infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text == "<<"
        else { return false }
        return infix.rightOperand.is(IntegerLiteralExprSyntax.self)
    }

    /// Whether a literal here is a value the program computes with, not a part of a type,
    /// a pattern, an attribute or a raw value, which must stay constant.
    private static func mayChangeConstant(_ node: Syntax) -> Bool {
        var current = node.parent
        while let ancestor = current {
            if ancestor.is(AttributeSyntax.self) || ancestor.is(EnumCaseElementSyntax.self)
                || ancestor.is(GenericArgumentClauseSyntax.self) || ancestor.is(ExpressionPatternSyntax.self)
                || ancestor.is(SwitchCaseLabelSyntax.self) || ancestor.is(TypeAnnotationSyntax.self)
                || ancestor.is(MacroExpansionExprSyntax.self)
            {
                return false
            }
            if ancestor.is(CodeBlockItemSyntax.self) || ancestor.is(MemberBlockItemSyntax.self) { return true }
            current = ancestor.parent
        }
        return true
    }

    /// The literal plus one, in the literal's own radix; nil for one too long to be sure of.
    private static func plusOne(_ literal: String) -> String? {
        let digits = literal.filter { $0 != "_" }
        for (prefix, radix) in [("0x", 16), ("0b", 2), ("0o", 8)] where digits.hasPrefix(prefix) {
            guard let value = UInt64(digits.dropFirst(2), radix: radix), value < .max else { return nil }
            return prefix + String(value + 1, radix: radix)
        }
        guard let value = UInt64(digits), value < .max else { return nil }
        return String(value + 1)
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

    /// `()` when the mutant is on, else the call: an expression of the call's own type when
    /// that is `()`, and one the compiler refuses otherwise (so the mutant is dropped, and the
    /// closure keeps its result). A `try?` stays in front, since it makes `()` optional too.
    private static func voidOrCall(_ id: Int, _ item: CodeBlockItemSyntax.Item) -> String {
        if case .expr(let expression) = item, let attempt = expression.as(TryExprSyntax.self),
            attempt.questionOrExclamationMark?.tokenKind == .postfixQuestionMark
        {
            return "try? (__schedulerMutant(\(id)) ? () : (\(attempt.expression.trimmedDescription)))"
        }
        return "(__schedulerMutant(\(id)) ? () : (\(item.trimmedDescription)))"
    }

    private static let keptCalls: Set<String> = [
        "fatalError", "preconditionFailure", "precondition", "assert", "assertionFailure", "init",
    ]

    /// A statement that is only a call (or `_ = call`), whose removal still compiles.
    private static func isRemovableCall(_ item: CodeBlockItemSyntax) -> Bool {
        guard case .expr(let expression) = item.item else { return false }
        var inner = effects(of: expression).inner
        if let assignment = inner.as(InfixOperatorExprSyntax.self), assignment.operator.is(AssignmentExprSyntax.self),
            assignment.leftOperand.is(DiscardAssignmentExprSyntax.self)
        {
            inner = effects(of: assignment.rightOperand).inner
        }
        guard let call = inner.as(FunctionCallExprSyntax.self) else { return false }
        let name =
            call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text
            ?? call.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text ?? ""
        return !keptCalls.contains(name)
    }

    /// A call or an assignment: a statement that declares nothing and does not jump.
    private static func isSwappable(_ item: CodeBlockItemSyntax) -> Bool {
        guard case .expr(let expression) = item.item else { return false }
        let inner = effects(of: expression).inner
        if inner.is(FunctionCallExprSyntax.self) { return isRemovableCall(item) }
        if let infix = inner.as(InfixOperatorExprSyntax.self) {
            return infix.operator.is(AssignmentExprSyntax.self)
                || ["+=", "-=", "|=", "&=", "*="].contains(
                    infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text)
        }
        return false
    }

    /// Two stores whose order cannot be observed, so that swapping them only makes an
    /// equivalent mutant: in an initializer (`initializerParameters` not nil), stores to
    /// distinct properties from values that read neither property nor `self` (no one else
    /// sees the instance yet; a bare name that is a parameter is the parameter); anywhere,
    /// stores of literals (`nil`, `0`, `false`) to distinct members of one value.
    private static func commute(
        _ first: CodeBlockItemSyntax, _ second: CodeBlockItemSyntax, initializerParameters: Set<String>?
    ) -> Bool {
        func store(_ item: CodeBlockItemSyntax) -> (target: String, value: ExprSyntax)? {
            guard case .expr(let expression) = item.item, let infix = expression.as(InfixOperatorExprSyntax.self),
                infix.operator.is(AssignmentExprSyntax.self)
            else { return nil }
            return (infix.leftOperand.trimmedDescription, infix.rightOperand)
        }
        guard let a = store(first), let b = store(second), a.target != b.target else { return false }
        func isName(_ text: some StringProtocol) -> Bool {
            !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        }
        let literal: (ExprSyntax) -> Bool = {
            $0.is(NilLiteralExprSyntax.self) || $0.is(BooleanLiteralExprSyntax.self)
                || $0.is(IntegerLiteralExprSyntax.self)
        }
        if literal(a.value), literal(b.value) {
            let (baseA, memberA) = a.target.splitLast(".")
            let (baseB, memberB) = b.target.splitLast(".")
            return baseA == baseB && isName(memberA) && isName(memberB) && memberA != memberB
        }
        guard let parameters = initializerParameters else { return false }
        func property(_ target: String) -> String? {
            let name = target.hasPrefix("self.") ? String(target.dropFirst(5)) : target
            return isName(name) ? name : nil
        }
        guard let propertyA = property(a.target), let propertyB = property(b.target) else { return false }
        func reads(_ value: ExprSyntax, _ name: String) -> Bool {
            let words = value.trimmedDescription.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") })
            if words.contains(where: { $0 == "self" }) { return true }
            return !parameters.contains(name) && words.contains { $0 == name }
        }
        return !reads(a.value, propertyB) && !reads(b.value, propertyA)
    }

    /// The names an initializer's parameters have inside its body.
    private static func parameters(of list: CodeBlockItemListSyntax) -> Set<String> {
        guard let initializer = list.parent?.parent?.as(InitializerDeclSyntax.self) else { return [] }
        return Set(initializer.signature.parameterClause.parameters.map { ($0.secondName ?? $0.firstName).text })
    }

    /// Whether a one-statement list is a closure's or a getter's body, or a function's that
    /// returns a value, whose one expression is its result.
    private static func valueMayBeImplicitlyReturned(by list: CodeBlockItemListSyntax) -> Bool {
        guard let parent = list.parent else { return false }
        // A closure's one call may be its result, or not: the build that follows finds out,
        // and a mutant that does not compile is dropped then.
        if parent.is(AccessorBlockSyntax.self) { return true }
        if let block = parent.as(CodeBlockSyntax.self), let owner = block.parent {
            if let function = owner.as(FunctionDeclSyntax.self) { return !returnsNothing(function) }
            if owner.is(AccessorDeclSyntax.self) || owner.is(SubscriptDeclSyntax.self) { return true }
        }
        return false
    }

    static func returnsNothing(_ function: FunctionDeclSyntax) -> Bool {
        guard let type = function.signature.returnClause?.type.trimmedDescription else { return true }
        return type == "Void" || type == "()"
    }

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

    private static func prependingReturn(_ id: Int, to statements: CodeBlockItemListSyntax) -> CodeBlockItemListSyntax {
        let first = statements.first!
        let guardItem = item(marked(id, "if __schedulerMutant(\(id)) { return }"), replacing: first)
            .with(\.trailingTrivia, []).with(\.semicolon, .semicolonToken(trailingTrivia: .space))
        return CodeBlockItemListSyntax([guardItem] + Array(statements))
    }

    // MARK: - Text

    /// Code as one line of at most 160 characters, for reports and equivalence keys.
    private static func oneLine(_ code: String) -> String {
        let words = code.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return words.count <= 160 ? words : String(words.prefix(159)) + "…"
    }

    private static func marked(_ id: Int, _ code: String) -> String {
        "/*M\(id){*/\(code)/*}M\(id)*/"
    }

    /// The markers go inside the parentheses: a comment next to an operator would change
    /// its fixity (`!/*…*/x`, `/*…*/..<n`, `/*…*/?.x`).
    private static func choice(_ id: Int, mutated: String, original: String) -> String {
        "(" + marked(id, "__schedulerMutant(\(id)) ? \(mutated) : \(original)") + ")"
    }

    /// Generated code as an expression node: it is only ever printed, never analysed again.
    private static func raw(_ text: String, trivia node: Syntax) -> ExprSyntax {
        ExprSyntax(DeclReferenceExprSyntax(baseName: .identifier(text)))
            .with(\.leadingTrivia, node.leadingTrivia).with(\.trailingTrivia, node.trailingTrivia)
    }

    private static func item(_ text: String, replacing old: CodeBlockItemSyntax) -> CodeBlockItemSyntax {
        CodeBlockItemSyntax(item: .expr(ExprSyntax(DeclReferenceExprSyntax(baseName: .identifier(text)))))
            .with(\.leadingTrivia, old.leadingTrivia).with(\.trailingTrivia, old.trailingTrivia)
    }

    // MARK: - Context

    /// `Type.member(labels:)` of the declarations around `node`, outermost first.
    static func context(of node: Syntax) -> String {
        var names: [String] = []
        var current: Syntax? = node
        while let syntax = current {
            if let function = syntax.as(FunctionDeclSyntax.self) {
                let labels = function.signature.parameterClause.parameters.map { "\($0.firstName.text):" }.joined()
                names.append("\(function.name.text)(\(labels))")
            } else if let initializer = syntax.as(InitializerDeclSyntax.self) {
                let labels = initializer.signature.parameterClause.parameters.map { "\($0.firstName.text):" }.joined()
                names.append("init(\(labels))")
            } else if syntax.is(DeinitializerDeclSyntax.self) {
                names.append("deinit")
            } else if let variable = syntax.as(VariableDeclSyntax.self) {
                names.append(variable.bindings.map { $0.pattern.trimmedDescription }.joined(separator: ","))
            } else if let subscriptDecl = syntax.as(SubscriptDeclSyntax.self) {
                names.append("subscript\(subscriptDecl.parameterClause.trimmedDescription)")
            } else if let type = syntax.asProtocol((any NamedDeclSyntax).self),
                syntax.is(StructDeclSyntax.self) || syntax.is(ClassDeclSyntax.self) || syntax.is(EnumDeclSyntax.self)
                    || syntax.is(ActorDeclSyntax.self) || syntax.is(ProtocolDeclSyntax.self)
            {
                names.append(type.name.text)
            } else if let extensionDecl = syntax.as(ExtensionDeclSyntax.self) {
                names.append(extensionDecl.extendedType.trimmedDescription)
            }
            current = syntax.parent
        }
        return names.isEmpty ? "(file)" : names.reversed().joined(separator: ".")
    }
}

extension String {
    /// The text before the last `separator` and after it; ("", self) when there is none.
    fileprivate func splitLast(_ separator: Character) -> (String, String) {
        guard let index = lastIndex(of: separator) else { return ("", self) }
        return (String(self[..<index]), String(self[self.index(after: index)...]))
    }
}

/// Finds whether a closure may change its parameter: an assignment to it or to a part of
/// it, `&` on it, or any method called on it (which may be `mutating`; syntax cannot tell).
private final class MutationFinder: SyntaxVisitor {
    let parameter: String
    var mutates = false

    init(parameter: String) {
        self.parameter = parameter
        super.init(viewMode: .sourceAccurate)
    }

    /// Whether `expression` is the parameter or a path into it.
    private func isRooted(_ expression: ExprSyntax) -> Bool {
        var current = expression
        while true {
            if let member = current.as(MemberAccessExprSyntax.self), let base = member.base {
                current = base
            } else if let optional = current.as(OptionalChainingExprSyntax.self) {
                current = optional.expression
            } else if let forced = current.as(ForceUnwrapExprSyntax.self) {
                current = forced.expression
            } else if let subscriptCall = current.as(SubscriptCallExprSyntax.self) {
                current = subscriptCall.calledExpression
            } else {
                return current.as(DeclReferenceExprSyntax.self)?.baseName.text == parameter
            }
        }
    }

    override func visit(_ node: InfixOperatorExprSyntax) -> SyntaxVisitorContinueKind {
        let symbol = node.operator.as(BinaryOperatorExprSyntax.self)?.operator.text ?? ""
        let compound = symbol.hasSuffix("=") && !["==", "!=", "<=", ">=", "==="].contains(symbol)
        let assigns = node.operator.is(AssignmentExprSyntax.self) || compound
        if assigns, isRooted(node.leftOperand) { mutates = true }
        return .visitChildren
    }

    override func visit(_ node: InOutExprSyntax) -> SyntaxVisitorContinueKind {
        if isRooted(node.expression) { mutates = true }
        return .visitChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if let member = node.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base, isRooted(base) {
            mutates = true
        }
        return .visitChildren
    }
}
