// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "SchedulerBehaviour",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Schedulers", targets: ["Schedulers"]),
        .library(name: "SchedulerConformance", targets: ["SchedulerConformance"]),
        .library(name: "SchedulerConformanceTesting", targets: ["SchedulerConformanceTesting"]),
        .library(name: "SchedulerProbes", targets: ["SchedulerProbes"]),
        .library(name: "SchedulerVocabulary", targets: ["SchedulerVocabulary"]),
        .library(name: "SchedulerStress", targets: ["SchedulerStress"]),
        .library(name: "SchedulerHarness", targets: ["SchedulerHarness"]),
        .executable(name: "conformance", targets: ["conformance"]),
        .executable(name: "stress", targets: ["stress"]),
        // `swift package conformance` and `swift package stress` in a package that depends on
        // this one: they build and run its tools made on SchedulerHarness.
        .plugin(name: "SchedulerConformancePlugin", targets: ["ConformancePlugin", "StressPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // `swift package generate-documentation` (make docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Layer 1: the reference schedulers.
        .target(
            name: "Schedulers",
            dependencies: [
                .product(name: "DequeModule", package: "swift-collections")
            ],
            path: "Sources/Schedulers",
            swiftSettings: strict
        ),
        // Layer 2, what both tools stand on: the concurrency probes that rules, scenarios and
        // tests share, and the vocabulary (subjects and their declarations, typed IDs, results
        // and reports, with their provenance, statuses, shards and gate).
        .target(
            name: "SchedulerProbes",
            dependencies: ["Schedulers", "CoreAffinity"],
            path: "Sources/SchedulerProbes",
            swiftSettings: strict
        ),
        // The GNU thread-affinity calls, which Swift's Glibc module does not export.
        .target(name: "CoreAffinity", path: "Sources/CoreAffinity"),
        .target(
            name: "SchedulerVocabulary",
            dependencies: ["Schedulers"],
            path: "Sources/SchedulerVocabulary",
            swiftSettings: strict
        ),
        // How a hang or a crash is read: gdb's stacks of a process, and the subject's frames in them.
        // Both tools' supervisors and the rules use it.
        .target(
            name: "SchedulerDiagnostics",
            dependencies: [
                "SchedulerProbes", "SchedulerVocabulary", "Schedulers",
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Sources/SchedulerDiagnostics",
            swiftSettings: strict
        ),
        // Layer 3: the conformance suite and the stress scenarios.
        .target(
            name: "SchedulerConformance",
            dependencies: [
                "Schedulers", "SchedulerProbes", "SchedulerVocabulary", "SchedulerDiagnostics",
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Conformance/SchedulerConformance",
            swiftSettings: strict
        ),
        .target(
            name: "SchedulerConformanceTesting",
            dependencies: ["SchedulerConformance", "SchedulerVocabulary", "Schedulers"],
            path: "Conformance/SchedulerConformanceTesting",
            swiftSettings: strict
        ),
        .target(
            name: "SchedulerMutants",
            dependencies: [
                "SchedulerVocabulary", "SchedulerProbes", "Schedulers",
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            path: "Conformance/Mutants",
            swiftSettings: strict
        ),
        .target(
            name: "SchedulerStress",
            dependencies: [
                "Schedulers", "SchedulerProbes", "SchedulerVocabulary",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Stress/SchedulerStress",
            swiftSettings: strict
        ),
        // Layer 4: the two commands, on what they share (process isolation, report files,
        // sharding, the dashboard), and the one import an adopter's tools need.
        .target(
            name: "CommandSupport",
            dependencies: [
                "SchedulerDiagnostics", "SchedulerVocabulary", "SchedulerProbes", "Schedulers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Conformance/Harness/CommandSupport",
            // The dashboard's page, style and script, and Chart.js inlined into it (MIT, its
            // licence beside it).
            resources: [
                .copy("Assets/dashboard.html"), .copy("Assets/dashboard.css"), .copy("Assets/dashboard.js"),
                .copy("Assets/chart.min.js"), .copy("Assets/chart.js-LICENSE.txt"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "ConformanceCommands",
            dependencies: [
                "CommandSupport", "SchedulerConformance", "SchedulerDiagnostics", "SchedulerVocabulary",
                "SchedulerProbes",
                "Schedulers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Conformance/Commands",
            swiftSettings: strict
        ),
        .target(
            name: "StressCommands",
            dependencies: [
                "CommandSupport", "SchedulerStress", "SchedulerVocabulary", "SchedulerProbes", "Schedulers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Stress/Commands",
            swiftSettings: strict
        ),
        .target(
            name: "SchedulerHarness",
            dependencies: [
                "ConformanceCommands", "StressCommands", "CommandSupport", "SchedulerConformance",
                "SchedulerVocabulary",
            ],
            path: "Conformance/Harness/SchedulerHarness",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "conformance",
            dependencies: ["ConformanceCommands", "SchedulerConformance", "SchedulerVocabulary", "SchedulerMutants"],
            path: "Conformance/ConformanceCLI",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "stress",
            dependencies: ["StressCommands", "SchedulerVocabulary", "SchedulerMutants"],
            path: "Stress/StressCLI",
            swiftSettings: strict
        ),
        // The command plugins. Both find the adopter's executable targets by the end of their
        // name (`-conformance`, `-stress`) or `--target`, build them in release and run them
        // with the arguments given; they share their code (Plugins/Shared, linked into each).
        .plugin(
            name: "ConformancePlugin",
            capability: .command(
                intent: .custom(
                    verb: "conformance",
                    description: "Build this package's *-conformance tools in release and run them"),
                permissions: [
                    .writeToPackageDirectory(reason: "The conformance reports are written under Reports/conformance")
                ]),
            path: "Plugins/ConformancePlugin"
        ),
        .plugin(
            name: "StressPlugin",
            capability: .command(
                intent: .custom(
                    verb: "stress", description: "Build this package's *-stress tools in release and run them"),
                permissions: [.writeToPackageDirectory(reason: "The stress reports are written under Reports/stress")]),
            path: "Plugins/StressPlugin"
        ),
        // What the test targets share: scratch folders removed when the test process exits.
        .target(name: "TestSupport", dependencies: ["Schedulers"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "TestSupport", "SchedulerConformance", "SchedulerConformanceTesting", "SchedulerMutants",
                "SchedulerDiagnostics",
                "SchedulerProbes",
                "SchedulerVocabulary",
                "Schedulers", "SchedulerHarness", "CommandSupport", "ConformanceCommands", "conformance",
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Tests/ConformanceTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "StressTests",
            dependencies: [
                "TestSupport", "SchedulerStress", "SchedulerMutants", "SchedulerConformance", "SchedulerProbes",
                "SchedulerVocabulary",
                "Schedulers",
                "stress", .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Tests/StressTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SchedulersTests",
            dependencies: ["Schedulers", "SchedulerProbes"],
            path: "Tests/SchedulersTests",
            swiftSettings: strict
        ),
    ]
)
