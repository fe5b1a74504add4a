import Foundation
import SchedulerConformance
import Schedulers
import Testing

@Suite struct CatalogueTests {
    /// A new category must reach the report's schema too, or every report naming it is invalid.
    @Test func theReportSchemaListsEveryCategory() throws {
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Reports/schema/conformance.schema.json")
        func categories(in node: Any) -> [String]? {
            if let object = node as? [String: Any] {
                if let category = object["category"] as? [String: Any], let names = category["enum"] as? [String] {
                    return names
                }
                return object.values.lazy.compactMap(categories).first
            }
            return (node as? [Any])?.lazy.compactMap(categories).first
        }
        let names = try #require(categories(in: JSONSerialization.jsonObject(with: Data(contentsOf: schema))))
        #expect(names == Rule.Category.allCases.map(\.rawValue))
    }

    /// The capability names live in the library; the schema's list and the words a failure
    /// uses for each are checked against it, so neither is kept in step by hand.
    @Test func theSchemaAndTheFailureWordingNameEveryCapability() throws {
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Reports/schema/conformance.schema.json")
        let root = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: schema)) as? [String: Any])
        let definitions = try #require(root["$defs"] as? [String: Any])
        let capabilities = try #require(definitions["capabilities"] as? [String: Any])
        let items = try #require(capabilities["items"] as? [String: Any])
        let names = SchedulerCapabilities.named.map(\.name)
        #expect(items["enum"] as? [String] == names)
        #expect(Set(SchedulerCapabilities.behaviour.keys) == Set(names))
    }

    @Test func hasAtLeastFortyFiveRulesWithUniqueWellFormedIDs() {
        let ids = RuleCatalogue.all.map(\.id)
        #expect(ids.count >= 45)
        #expect(Set(ids).count == ids.count, "duplicate rule IDs")
        // Every published ID has its rule, in catalogue order, and no rule has another.
        #expect(ids == RuleID.all)
        #expect(RuleID(rawValue: "ORD-999") == nil && RuleID(rawValue: "ORD1") == nil)
        for rule in RuleCatalogue.all {
            #expect(
                rule.id.rawValue.hasPrefix(rule.category.rawValue + "-"), "\(rule.id) is not in its category's prefix")
            #expect(
                RuleID(rawValue: rule.id.rawValue.lowercased()) == rule.id,
                "\(rule.id) does not read back from its text")
            #expect(!rule.title.isEmpty && !rule.rationale.isEmpty && !rule.hint.isEmpty, "\(rule.id) lacks text")
        }
    }

    @Test(arguments: Rule.Category.allCases)
    func everyCategoryIsNumberedFromOneWithoutGaps(_ category: Rule.Category) {
        let numbers = RuleCatalogue.all.filter { $0.category == category }.map(\.id.number)
        #expect(!numbers.isEmpty)
        #expect(numbers == Array(1...numbers.count), "\(category.rawValue) is numbered \(numbers)")
    }

    @Test func skipReasonsNameTheMissingCapability() {
        let rule = RuleCatalogue.rule(.vt1)
        #expect(rule.skipReason(for: [.serial]) == "does not claim virtualTime")
        #expect(rule.skipReason(for: [.virtualTime]) == nil)
        let excluding = RuleCatalogue.rule(.imm5)
        #expect(excluding.skipReason(for: [.synchronous, .repeating]) == "claims repeating")
        let anyOf = RuleCatalogue.rule(.can9)
        #expect(anyOf.skipReason(for: [.concurrent])?.hasPrefix("claims none of") == true)
    }
}
