import SwiftSyntax

/// The expressions' helpers of ``SchemataRewriter``: which nodes are exempt, and how each
/// operator rewrites.
extension SchemataRewriter {
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

    static func replacingOperator(of infix: InfixOperatorExprSyntax, with symbol: String) -> String {
        guard let binary = infix.operator.as(BinaryOperatorExprSyntax.self) else { return infix.trimmedDescription }
        let token = binary.operator.with(\.tokenKind, .binaryOperator(symbol))
        return infix.with(\.operator, ExprSyntax(binary.with(\.operator, token))).trimmedDescription
    }

    /// `try`, `try?`, `try!` and `await` in front of an expression, and what they cover.
    static func effects(of expression: ExprSyntax) -> (prefix: String, inner: ExprSyntax) {
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

    static func relaxing(_ call: FunctionCallExprSyntax, at index: Int) -> FunctionCallExprSyntax {
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
    static func lockedClosure(of call: FunctionCallExprSyntax) -> (
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
    static func lockedBody(of call: FunctionCallExprSyntax) -> (base: String, body: String)? {
        lockedClosure(of: call).map { ($0.base.trimmedDescription, $0.closure.trimmedDescription) }
    }

    /// The `1` of `1 << n` with a literal `n`: `2 << n` is `1 << (n + 1)`, the mutant of `n`,
    /// so mutating both would count one program twice.
    static func isShiftedOne(_ node: IntegerLiteralExprSyntax) -> Bool {
        guard node.literal.text == "1", let infix = node.parent?.as(InfixOperatorExprSyntax.self),
            infix.leftOperand.id == node.id,
            infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text == "<<"
        else { return false }
        return infix.rightOperand.is(IntegerLiteralExprSyntax.self)
    }

    /// Whether a literal here is a value the program computes with, not a part of a type,
    /// a pattern, an attribute or a raw value, which must stay constant.
    static func mayChangeConstant(_ node: Syntax) -> Bool {
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
    static func plusOne(_ literal: String) -> String? {
        let digits = literal.filter { $0 != "_" }
        for (prefix, radix) in [("0x", 16), ("0b", 2), ("0o", 8)] where digits.hasPrefix(prefix) {
            guard let value = UInt64(digits.dropFirst(2), radix: radix), value < .max else { return nil }
            return prefix + String(value + 1, radix: radix)
        }
        guard let value = UInt64(digits), value < .max else { return nil }
        return String(value + 1)
    }
}
