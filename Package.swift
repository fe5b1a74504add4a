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
        .library(name: "SchedulerStress", targets: ["SchedulerStress"]),
        .library(name: "SchedulerHarness", targets: ["SchedulerHarness"]),
        .executable(name: "conformance", targets: ["conformance"]),
        .executable(name: "stress", targets: ["stress"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        .target(
            name: "Schedulers",
            dependencies: [
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            path: "Sources/Schedulers",
            swiftSettings: strict
        ),
        .target(
            name: "SchedulerConformance",
            dependencies: ["Schedulers", "CoreAffinity", .product(name: "Subprocess", package: "swift-subprocess")],
            path: "Conformance/SchedulerConformance",
            swiftSettings: strict
        ),
        // The GNU thread-affinity calls, which Swift's Glibc module does not export.
        .target(name: "CoreAffinity", path: "Conformance/CoreAffinity"),
        .target(
            name: "SchedulerConformanceTesting",
            dependencies: ["SchedulerConformance", "Schedulers"],
            path: "Conformance/SchedulerConformanceTesting",
            swiftSettings: strict
        ),
        .target(
            name: "SchedulerMutants",
            dependencies: ["SchedulerConformance", "Schedulers", .product(name: "HeapModule", package: "swift-collections")],
            path: "Conformance/Mutants",
            swiftSettings: strict
        ),
        .target(
            name: "SchedulerStress",
            dependencies: [
                "Schedulers", "SchedulerConformance",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Stress/SchedulerStress",
            swiftSettings: strict
        ),
        .target(
            name: "SchedulerHarness",
            dependencies: [
                "SchedulerConformance", "SchedulerStress", "Schedulers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Conformance/Harness",
            // Chart.js, inlined into the dashboard; MIT, its licence beside it.
            resources: [.copy("Reports/Assets/chart.min.js"), .copy("Reports/Assets/chart.js-LICENSE.txt")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "conformance",
            dependencies: ["SchedulerHarness", "SchedulerConformance", "SchedulerMutants"],
            path: "Conformance/ConformanceCLI",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "stress",
            dependencies: ["SchedulerHarness", "SchedulerConformance", "SchedulerMutants"],
            path: "Stress/StressCLI",
            swiftSettings: strict
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "SchedulerConformance", "SchedulerConformanceTesting", "SchedulerMutants", "Schedulers", "SchedulerHarness", "conformance",
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Tests/ConformanceTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "StressTests",
            dependencies: [
                "SchedulerStress", "SchedulerMutants", "SchedulerConformance", "Schedulers", "stress",
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Tests/StressTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SchedulersTests",
            dependencies: ["Schedulers"],
            path: "Tests/SchedulersTests",
            swiftSettings: strict
        ),
    ]
)
