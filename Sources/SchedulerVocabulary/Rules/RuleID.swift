/// A rule's ID, such as `ORD-1`: its category's prefix, a dash and a number, never changed
/// once published. Every ID is a case, so a misspelt one does not compile and the list of
/// published IDs is the cases themselves; reports keep the text (`rawValue`).
public enum RuleID: String, CaseIterable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    case ord1 = "ORD-1"
    case ord2 = "ORD-2"
    case ord3 = "ORD-3"
    case ord4 = "ORD-4"
    case ord5 = "ORD-5"
    case ord6 = "ORD-6"
    case imm1 = "IMM-1"
    case imm2 = "IMM-2"
    case imm3 = "IMM-3"
    case imm4 = "IMM-4"
    case imm5 = "IMM-5"
    case trm1 = "TRM-1"
    case trm2 = "TRM-2"
    case trm3 = "TRM-3"
    case trm4 = "TRM-4"
    case trm5 = "TRM-5"
    case trm6 = "TRM-6"
    case can1 = "CAN-1"
    case can2 = "CAN-2"
    case can3 = "CAN-3"
    case can4 = "CAN-4"
    case can5 = "CAN-5"
    case can6 = "CAN-6"
    case can7 = "CAN-7"
    case can8 = "CAN-8"
    case can9 = "CAN-9"
    case can10 = "CAN-10"
    case can11 = "CAN-11"
    case can12 = "CAN-12"
    case cur1 = "CUR-1"
    case cur2 = "CUR-2"
    case cur3 = "CUR-3"
    case cur4 = "CUR-4"
    case cur5 = "CUR-5"
    case cur6 = "CUR-6"
    case cur7 = "CUR-7"
    case cur8 = "CUR-8"
    case sub1 = "SUB-1"
    case sub2 = "SUB-2"
    case sub3 = "SUB-3"
    case sub4 = "SUB-4"
    case rec1 = "REC-1"
    case rec2 = "REC-2"
    case rec3 = "REC-3"
    case rec4 = "REC-4"
    case rec5 = "REC-5"
    case rec6 = "REC-6"
    case rec7 = "REC-7"
    case tim1 = "TIM-1"
    case tim2 = "TIM-2"
    case tim3 = "TIM-3"
    case tim4 = "TIM-4"
    case tim5 = "TIM-5"
    case tim6 = "TIM-6"
    case tim7 = "TIM-7"
    case tim8 = "TIM-8"
    case tim9 = "TIM-9"
    case tim10 = "TIM-10"
    case tim11 = "TIM-11"
    case tim12 = "TIM-12"
    case tim13 = "TIM-13"
    case tim14 = "TIM-14"
    case tim15 = "TIM-15"
    case tim16 = "TIM-16"
    case vt1 = "VT-1"
    case vt2 = "VT-2"
    case vt3 = "VT-3"
    case vt4 = "VT-4"
    case vt5 = "VT-5"
    case vt6 = "VT-6"
    case vt7 = "VT-7"
    case vt8 = "VT-8"
    case vt9 = "VT-9"
    case vt10 = "VT-10"
    case vt11 = "VT-11"
    case vt12 = "VT-12"
    case vt13 = "VT-13"
    case thr1 = "THR-1"
    case thr2 = "THR-2"
    case thr3 = "THR-3"
    case thr4 = "THR-4"
    case thr5 = "THR-5"
    case thr6 = "THR-6"
    case clk1 = "CLK-1"
    case clk2 = "CLK-2"
    case clk3 = "CLK-3"
    case clk4 = "CLK-4"
    case clk5 = "CLK-5"
    case clk6 = "CLK-6"
    case clk7 = "CLK-7"
    case clk8 = "CLK-8"
    case clk9 = "CLK-9"
    case clk10 = "CLK-10"
    case clk11 = "CLK-11"
    case exe1 = "EXE-1"
    case exe2 = "EXE-2"
    case exe3 = "EXE-3"
    case exe4 = "EXE-4"
    case exe5 = "EXE-5"
    case exe6 = "EXE-6"
    case exe7 = "EXE-7"
    case exe8 = "EXE-8"
    case exe9 = "EXE-9"
    case lin1 = "LIN-1"
    case lin2 = "LIN-2"
    case lin3 = "LIN-3"
    case lin4 = "LIN-4"
    case lin5 = "LIN-5"
    case lin6 = "LIN-6"
    case lin7 = "LIN-7"

    /// The published ID written as text, as reports and the command line have it (`ORD-1`,
    /// case-insensitive); nil for any other text.
    public init?(rawValue: String) {
        guard let id = Self.byText[rawValue.uppercased()] else { return nil }
        self = id
    }

    /// The rule's family.
    public var category: RuleCategory {
        RuleCategory(rawValue: String(rawValue.prefix { $0 != "-" }))!
    }

    /// Its number within the family.
    public var number: Int { Int(rawValue.drop { $0 != "-" }.dropFirst())! }

    public var description: String { rawValue }

    /// Every published ID, in catalogue order: the catalogue has one rule for each.
    public static var all: [RuleID] { allCases }

    /// Catalogue order: the order of the cases, by category, then by number.
    public static func < (lhs: RuleID, rhs: RuleID) -> Bool { order[lhs]! < order[rhs]! }

    private static let byText = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
    private static let order = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1, $0) })
}
