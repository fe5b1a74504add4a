/// The rule's family; its raw value is the ID prefix.
public enum RuleCategory: String, Codable, Sendable, CaseIterable {
    case ordering = "ORD"
    case immediate = "IMM"
    case trampoline = "TRM"
    case cancellation = "CAN"
    case current = "CUR"
    case subscription = "SUB"
    case recursion = "REC"
    case timers = "TIM"
    case virtualTime = "VT"
    case threadSafety = "THR"
    case clock = "CLK"
    case executor = "EXE"
    case modelChecked = "LIN"

    /// A readable name for tables.
    public var title: String {
        switch self {
        case .ordering: "Ordering and exclusivity"
        case .immediate: "Immediate"
        case .trampoline: "Trampoline"
        case .cancellation: "Cancellation"
        case .current: "Current scheduler"
        case .subscription: "Subscription"
        case .recursion: "Recursion"
        case .timers: "Timers"
        case .virtualTime: "Virtual time"
        case .threadSafety: "Thread safety and lifetime"
        case .clock: "Clocks"
        case .executor: "Executors"
        case .modelChecked: "Generated scenarios, model-checked"
        }
    }

    /// The kind of subject the category's rules judge.
    public var kind: ConformanceSubject.Kind {
        switch self {
        case .clock: .clock
        case .executor: .executor
        default: .scheduler
        }
    }
}
