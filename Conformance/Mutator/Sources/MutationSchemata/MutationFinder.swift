import SwiftSyntax

extension String {
    /// The text before the last `separator` and after it; ("", self) when there is none.
    func splitLast(_ separator: Character) -> (String, String) {
        guard let index = lastIndex(of: separator) else { return ("", self) }
        return (String(self[..<index]), String(self[self.index(after: index)...]))
    }
}

/// Finds whether a closure may change its parameter: an assignment to it or to a part of
/// it, `&` on it, or any method called on it (which may be `mutating`; syntax cannot tell).
final class MutationFinder: SyntaxVisitor {
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
