import SwiftSyntax

/// The statements' and the text's helpers of ``SchemataRewriter``.
extension SchemataRewriter {
    /// `()` when the mutant is on, else the call: an expression of the call's own type when
    /// that is `()`, and one the compiler refuses otherwise (so the mutant is dropped, and the
    /// closure keeps its result). A `try?` stays in front, since it makes `()` optional too.
    static func voidOrCall(_ id: Int, _ item: CodeBlockItemSyntax.Item) -> String {
        if case .expr(let expression) = item, let attempt = expression.as(TryExprSyntax.self),
            attempt.questionOrExclamationMark?.tokenKind == .postfixQuestionMark
        {
            return "try? (__schedulerMutant(\(id)) ? () : (\(attempt.expression.trimmedDescription)))"
        }
        return "(__schedulerMutant(\(id)) ? () : (\(item.trimmedDescription)))"
    }

    /// A statement that is only a call (or `_ = call`), whose removal still compiles.
    static func isRemovableCall(_ item: CodeBlockItemSyntax) -> Bool {
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
    static func isSwappable(_ item: CodeBlockItemSyntax) -> Bool {
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
    static func commute(
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
    static func parameters(of list: CodeBlockItemListSyntax) -> Set<String> {
        guard let initializer = list.parent?.parent?.as(InitializerDeclSyntax.self) else { return [] }
        return Set(initializer.signature.parameterClause.parameters.map { ($0.secondName ?? $0.firstName).text })
    }

    /// Whether a one-statement list is a closure's or a getter's body, or a function's that
    /// returns a value, whose one expression is its result.
    static func valueMayBeImplicitlyReturned(by list: CodeBlockItemListSyntax) -> Bool {
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

    static func prependingReturn(_ id: Int, to statements: CodeBlockItemListSyntax) -> CodeBlockItemListSyntax {
        let first = statements.first!
        let guardItem = item(marked(id, "if __schedulerMutant(\(id)) { return }"), replacing: first)
            .with(\.trailingTrivia, []).with(\.semicolon, .semicolonToken(trailingTrivia: .space))
        return CodeBlockItemListSyntax([guardItem] + Array(statements))
    }

    /// Code as one line of at most 160 characters, for reports and equivalence keys.
    static func oneLine(_ code: String) -> String {
        let words = code.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return words.count <= 160 ? words : String(words.prefix(159)) + "…"
    }

    static func marked(_ id: Int, _ code: String) -> String {
        "/*M\(id){*/\(code)/*}M\(id)*/"
    }

    /// The markers go inside the parentheses: a comment next to an operator would change
    /// its fixity (`!/*…*/x`, `/*…*/..<n`, `/*…*/?.x`).
    static func choice(_ id: Int, mutated: String, original: String) -> String {
        "(" + marked(id, "__schedulerMutant(\(id)) ? \(mutated) : \(original)") + ")"
    }

    /// Generated code as an expression node: it is only ever printed, never analysed again.
    static func raw(_ text: String, trivia node: Syntax) -> ExprSyntax {
        ExprSyntax(DeclReferenceExprSyntax(baseName: .identifier(text)))
            .with(\.leadingTrivia, node.leadingTrivia).with(\.trailingTrivia, node.trailingTrivia)
    }

    static func item(_ text: String, replacing old: CodeBlockItemSyntax) -> CodeBlockItemSyntax {
        CodeBlockItemSyntax(item: .expr(ExprSyntax(DeclReferenceExprSyntax(baseName: .identifier(text)))))
            .with(\.leadingTrivia, old.leadingTrivia).with(\.trailingTrivia, old.trailingTrivia)
    }

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
