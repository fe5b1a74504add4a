import SwiftParser
import SwiftSyntax

/// Edits to a copied `Package.swift`.
public enum PackageManifest {
    /// `text` with every `.package(path: "relative")` (and `.package(name:, path:)`) made
    /// absolute against `origin`, so a copy built elsewhere finds the same local packages.
    public static func absolutizingPathDependencies(in text: String, origin: String) -> String {
        let tree = Parser.parse(source: text)
        return PathRewriter(origin: origin).rewrite(tree).description
    }

    private final class PathRewriter: SyntaxRewriter {
        let origin: String

        init(origin: String) {
            self.origin = origin.hasSuffix("/") ? String(origin.dropLast()) : origin
            super.init(viewMode: .sourceAccurate)
        }

        override func visit(_ node: FunctionCallExprSyntax) -> ExprSyntax {
            guard let member = node.calledExpression.as(MemberAccessExprSyntax.self),
                member.declName.baseName.text == "package"
            else { return super.visit(node) }
            var arguments = Array(node.arguments)
            for index in arguments.indices where arguments[index].label?.text == "path" {
                guard let literal = arguments[index].expression.as(StringLiteralExprSyntax.self),
                    literal.segments.count == 1,
                    let segment = literal.segments.first?.as(StringSegmentSyntax.self),
                    !segment.content.text.hasPrefix("/")
                else { continue }
                let absolute = origin + "/" + segment.content.text
                let replaced = literal.with(
                    \.segments,
                    StringLiteralSegmentListSyntax([.stringSegment(segment.with(\.content, .stringSegment(absolute)))]))
                arguments[index] = arguments[index].with(\.expression, ExprSyntax(replaced))
            }
            return ExprSyntax(node.with(\.arguments, LabeledExprListSyntax(arguments)))
        }
    }
}
