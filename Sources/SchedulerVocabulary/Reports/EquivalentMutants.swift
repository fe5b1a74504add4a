import Foundation

/// A checked-in list of mutants a person judged equivalent to the original: no scheduler
/// user could tell them apart. Each needs a reason a reviewer would accept.
public struct EquivalentMutants: Codable, Sendable, Equatable {
    public var declarations: [Declaration]

    /// One declared mutant and why.
    public struct Declaration: Codable, Sendable, Equatable {
        public var mutant: MutantKey
        public var reason: String
        /// The only CPU architecture (`x86_64`, `arm64`) the equivalence holds on, when it
        /// depends on one: a weakened memory ordering can be the same machine code on x86-64
        /// and a real defect on arm64.
        public var architecture: String?
        /// The only operating system (`linux`, `macos`) the equivalence holds on, when it
        /// depends on one: what a system library does with a source nobody cancelled, say.
        public var platform: String?

        public init(mutant: MutantKey, reason: String, architecture: String? = nil, platform: String? = nil) {
            self.mutant = mutant
            self.reason = reason
            self.architecture = architecture
            self.platform = platform
        }
    }

    public init(declarations: [Declaration] = []) {
        self.declarations = declarations
    }

    /// The reason given for `key`, if it was declared for every architecture and platform
    /// or for these.
    public func reason(
        for key: MutantKey, architecture: String? = Provenance.architecture, platform: String? = Provenance.platform
    ) -> String? {
        declarations.first {
            $0.mutant == key && ($0.architecture == nil || $0.architecture == architecture)
                && ($0.platform == nil || $0.platform == platform)
        }?.reason
    }
}
