// swift-tools-version: 6.1
import PackageDescription

// The source mutator behind `conformance mutate`, a package of its own so that no tool built
// on the harness compiles swift-syntax: `mutate` builds this package on first use and runs
// its one executable, which turns a target's sources into mutant schemata.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "SchedulerMutator",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "scheduler-mutator", targets: ["scheduler-mutator"]),
        .library(name: "MutationSchemata", targets: ["MutationSchemata"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(
            name: "MutationSchemata",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftOperators", package: "swift-syntax"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "scheduler-mutator",
            dependencies: ["MutationSchemata", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),
        .testTarget(name: "MutationSchemataTests", dependencies: ["MutationSchemata"], swiftSettings: strict),
    ]
)
