import SwiftSyntax

/// Which `#if` clauses the build compiles: enough of the compiler's evaluation for the
/// conditions scheduler code uses (names, `!`, `&&`, `||`, `os`, `arch`, `canImport`).
/// A condition it cannot evaluate counts as true, so code is mutated rather than missed.
public struct CompilationConditions: Sendable {
    /// The custom conditions set (`-D NAME`), `DEBUG` in a debug build.
    public var defined: Set<String>

    public init(defined: Set<String> = []) {
        self.defined = defined
    }

    /// Whether every `#if` clause around `node` is the one its block compiles.
    func isCompiled(_ node: Syntax) -> Bool {
        var current = node.parent
        while let ancestor = current {
            if let clause = ancestor.as(IfConfigClauseSyntax.self), let block = clause.parent {
                // A condition is the build's, never the program's.
                if let condition = clause.condition, condition.position <= node.position,
                    node.endPosition <= condition.endPosition
                {
                    return false
                }
                let clauses = block.children(viewMode: .sourceAccurate).compactMap { $0.as(IfConfigClauseSyntax.self) }
                let active = clauses.first { $0.condition.map(evaluate) ?? true }
                if active?.id != clause.id { return false }
            }
            current = ancestor.parent
        }
        return true
    }

    func evaluate(_ condition: ExprSyntax) -> Bool {
        if let name = condition.as(DeclReferenceExprSyntax.self) {
            return defined.contains(name.baseName.text)
        }
        if let boolean = condition.as(BooleanLiteralExprSyntax.self) { return boolean.literal.text == "true" }
        if let prefix = condition.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "!" {
            return !evaluate(prefix.expression)
        }
        if let tuple = condition.as(TupleExprSyntax.self), tuple.elements.count == 1 {
            return evaluate(tuple.elements.first!.expression)
        }
        if let infix = condition.as(InfixOperatorExprSyntax.self),
            let symbol = infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text
        {
            if symbol == "&&" { return evaluate(infix.leftOperand) && evaluate(infix.rightOperand) }
            if symbol == "||" { return evaluate(infix.leftOperand) || evaluate(infix.rightOperand) }
            return true
        }
        if let sequence = condition.as(SequenceExprSyntax.self) {
            // Unfolded: `a && b || c`, left to right with && binding tighter.
            var disjuncts: [Bool] = []
            var conjunction = true
            var expectOperand = true
            for element in sequence.elements {
                if expectOperand {
                    conjunction = conjunction && evaluate(element)
                } else if let symbol = element.as(BinaryOperatorExprSyntax.self)?.operator.text, symbol == "||" {
                    disjuncts.append(conjunction)
                    conjunction = true
                }
                expectOperand.toggle()
            }
            disjuncts.append(conjunction)
            return disjuncts.contains(true)
        }
        if let call = condition.as(FunctionCallExprSyntax.self),
            let name = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text,
            let argument = call.arguments.first?.expression.trimmedDescription
        {
            switch name {
            case "os": return argument == Self.os
            case "arch": return argument == Self.arch
            case "canImport": return !Self.unavailableModules.contains(argument)
            default: return true
            }
        }
        return true
    }

    #if os(Linux)
        static let os = "Linux"
        static let unavailableModules: Set<String> = ["Darwin", "Musl", "WinSDK", "ObjectiveC", "UIKit", "AppKit"]
    #else
        static let os = "macOS"
        static let unavailableModules: Set<String> = ["Glibc", "Musl", "WinSDK"]
    #endif
    #if arch(x86_64)
        static let arch = "x86_64"
    #else
        static let arch = "arm64"
    #endif
}
