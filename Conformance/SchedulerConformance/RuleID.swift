/// A rule's ID, such as `ORD-1`: its category's prefix, a dash and a number, never changed
/// once published. Every ID is a static member below, so a misspelt one does not compile;
/// reports keep the text (``rawValue``), which reads back into the same ID.
public struct RuleID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The rule's family.
    public let category: Rule.Category
    /// Its number within the family.
    public let number: Int

    init(_ category: Rule.Category, _ number: Int) {
        self.category = category
        self.number = number
    }

    /// The published ID written as text, as reports and the command line have it (`ORD-1`,
    /// case-insensitive); nil for any other text.
    public init?(rawValue: String) {
        let parts = rawValue.uppercased().split(separator: "-")
        guard parts.count == 2, let category = Rule.Category(rawValue: String(parts[0])), let number = Int(parts[1]),
            RuleID.all.contains(RuleID(category, number))
        else { return nil }
        self.init(category, number)
    }

    /// `ORD-1`.
    public var rawValue: String { "\(category.rawValue)-\(number)" }

    public var description: String { rawValue }

    /// Catalogue order: by category, then by number.
    public static func < (lhs: RuleID, rhs: RuleID) -> Bool {
        let categories = Rule.Category.allCases
        let left = categories.firstIndex(of: lhs.category)!
        let right = categories.firstIndex(of: rhs.category)!
        return (left, lhs.number) < (right, rhs.number)
    }
}

extension RuleID {
    public static let ord1 = RuleID(.ordering, 1)
    public static let ord2 = RuleID(.ordering, 2)
    public static let ord3 = RuleID(.ordering, 3)
    public static let ord4 = RuleID(.ordering, 4)
    public static let ord5 = RuleID(.ordering, 5)
    public static let ord6 = RuleID(.ordering, 6)
    public static let imm1 = RuleID(.immediate, 1)
    public static let imm2 = RuleID(.immediate, 2)
    public static let imm3 = RuleID(.immediate, 3)
    public static let imm4 = RuleID(.immediate, 4)
    public static let imm5 = RuleID(.immediate, 5)
    public static let trm1 = RuleID(.trampoline, 1)
    public static let trm2 = RuleID(.trampoline, 2)
    public static let trm3 = RuleID(.trampoline, 3)
    public static let trm4 = RuleID(.trampoline, 4)
    public static let trm5 = RuleID(.trampoline, 5)
    public static let trm6 = RuleID(.trampoline, 6)
    public static let can1 = RuleID(.cancellation, 1)
    public static let can2 = RuleID(.cancellation, 2)
    public static let can3 = RuleID(.cancellation, 3)
    public static let can4 = RuleID(.cancellation, 4)
    public static let can5 = RuleID(.cancellation, 5)
    public static let can6 = RuleID(.cancellation, 6)
    public static let can7 = RuleID(.cancellation, 7)
    public static let can8 = RuleID(.cancellation, 8)
    public static let can9 = RuleID(.cancellation, 9)
    public static let can10 = RuleID(.cancellation, 10)
    public static let can11 = RuleID(.cancellation, 11)
    public static let can12 = RuleID(.cancellation, 12)
    public static let cur1 = RuleID(.current, 1)
    public static let cur2 = RuleID(.current, 2)
    public static let cur3 = RuleID(.current, 3)
    public static let cur4 = RuleID(.current, 4)
    public static let cur5 = RuleID(.current, 5)
    public static let cur6 = RuleID(.current, 6)
    public static let cur7 = RuleID(.current, 7)
    public static let cur8 = RuleID(.current, 8)
    public static let sub1 = RuleID(.subscription, 1)
    public static let sub2 = RuleID(.subscription, 2)
    public static let sub3 = RuleID(.subscription, 3)
    public static let sub4 = RuleID(.subscription, 4)
    public static let rec1 = RuleID(.recursion, 1)
    public static let rec2 = RuleID(.recursion, 2)
    public static let rec3 = RuleID(.recursion, 3)
    public static let rec4 = RuleID(.recursion, 4)
    public static let rec5 = RuleID(.recursion, 5)
    public static let rec6 = RuleID(.recursion, 6)
    public static let rec7 = RuleID(.recursion, 7)
    public static let tim1 = RuleID(.timers, 1)
    public static let tim2 = RuleID(.timers, 2)
    public static let tim3 = RuleID(.timers, 3)
    public static let tim4 = RuleID(.timers, 4)
    public static let tim5 = RuleID(.timers, 5)
    public static let tim6 = RuleID(.timers, 6)
    public static let tim7 = RuleID(.timers, 7)
    public static let tim8 = RuleID(.timers, 8)
    public static let tim9 = RuleID(.timers, 9)
    public static let tim10 = RuleID(.timers, 10)
    public static let tim11 = RuleID(.timers, 11)
    public static let tim12 = RuleID(.timers, 12)
    public static let tim13 = RuleID(.timers, 13)
    public static let tim14 = RuleID(.timers, 14)
    public static let tim15 = RuleID(.timers, 15)
    public static let tim16 = RuleID(.timers, 16)
    public static let vt1 = RuleID(.virtualTime, 1)
    public static let vt2 = RuleID(.virtualTime, 2)
    public static let vt3 = RuleID(.virtualTime, 3)
    public static let vt4 = RuleID(.virtualTime, 4)
    public static let vt5 = RuleID(.virtualTime, 5)
    public static let vt6 = RuleID(.virtualTime, 6)
    public static let vt7 = RuleID(.virtualTime, 7)
    public static let vt8 = RuleID(.virtualTime, 8)
    public static let vt9 = RuleID(.virtualTime, 9)
    public static let vt10 = RuleID(.virtualTime, 10)
    public static let vt11 = RuleID(.virtualTime, 11)
    public static let vt12 = RuleID(.virtualTime, 12)
    public static let vt13 = RuleID(.virtualTime, 13)
    public static let thr1 = RuleID(.threadSafety, 1)
    public static let thr2 = RuleID(.threadSafety, 2)
    public static let thr3 = RuleID(.threadSafety, 3)
    public static let thr4 = RuleID(.threadSafety, 4)
    public static let thr5 = RuleID(.threadSafety, 5)
    public static let thr6 = RuleID(.threadSafety, 6)
    public static let clk1 = RuleID(.clock, 1)
    public static let clk2 = RuleID(.clock, 2)
    public static let clk3 = RuleID(.clock, 3)
    public static let clk4 = RuleID(.clock, 4)
    public static let clk5 = RuleID(.clock, 5)
    public static let clk6 = RuleID(.clock, 6)
    public static let clk7 = RuleID(.clock, 7)
    public static let clk8 = RuleID(.clock, 8)
    public static let clk9 = RuleID(.clock, 9)
    public static let clk10 = RuleID(.clock, 10)
    public static let clk11 = RuleID(.clock, 11)
    public static let exe1 = RuleID(.executor, 1)
    public static let exe2 = RuleID(.executor, 2)
    public static let exe3 = RuleID(.executor, 3)
    public static let exe4 = RuleID(.executor, 4)
    public static let exe5 = RuleID(.executor, 5)
    public static let exe6 = RuleID(.executor, 6)
    public static let exe7 = RuleID(.executor, 7)
    public static let exe8 = RuleID(.executor, 8)
    public static let exe9 = RuleID(.executor, 9)
    public static let lin1 = RuleID(.modelChecked, 1)
    public static let lin2 = RuleID(.modelChecked, 2)
    public static let lin3 = RuleID(.modelChecked, 3)
    public static let lin4 = RuleID(.modelChecked, 4)
    public static let lin5 = RuleID(.modelChecked, 5)

    /// Every published ID, in catalogue order: the catalogue has one rule for each.
    public static let all: [RuleID] = [
        ord1, ord2, ord3, ord4, ord5, ord6, imm1, imm2, imm3, imm4, imm5, trm1, trm2, trm3, trm4, trm5, trm6, can1,
        can2, can3, can4, can5, can6, can7, can8, can9, can10, can11, can12, cur1, cur2, cur3, cur4, cur5, cur6, cur7,
        cur8,
        sub1,
        sub2, sub3, sub4, rec1, rec2, rec3, rec4, rec5, rec6, rec7, tim1, tim2, tim3, tim4, tim5, tim6, tim7, tim8,
        tim9, tim10, tim11, tim12, tim13, tim14, tim15, tim16, vt1, vt2, vt3, vt4, vt5, vt6, vt7, vt8, vt9, vt10, vt11,
        vt12, vt13, thr1, thr2, thr3, thr4, thr5, thr6, clk1, clk2, clk3, clk4, clk5, clk6, clk7, clk8, clk9, clk10,
        clk11,
        exe1, exe2, exe3, exe4, exe5, exe6, exe7, exe8, exe9, lin1, lin2, lin3, lin4, lin5,
    ]
}
