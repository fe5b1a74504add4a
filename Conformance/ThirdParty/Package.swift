// swift-tools-version: 6.1
import PackageDescription

// The third-party matrix, a package of its own (as swift-nio keeps its benchmarks) so that
// depending on SchedulerBehaviour never pulls swift-nio or OpenCombine into an adopter's
// graph. `make matrix` builds and runs it from the repository root.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "ThirdPartyMatrix",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "SchedulerBehaviour", path: "../.."),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/pointfreeco/combine-schedulers", from: "1.2.2"),
    ],
    targets: [
        .target(
            name: "ThirdPartySubjects",
            dependencies: [
                .product(name: "Schedulers", package: "SchedulerBehaviour"),
                .product(name: "SchedulerConformance", package: "SchedulerBehaviour"),
                .product(name: "SchedulerStress", package: "SchedulerBehaviour"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
                .product(name: "OpenCombineFoundation", package: "OpenCombine"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "CombineSchedulers", package: "combine-schedulers"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "matrix-conformance",
            dependencies: ["ThirdPartySubjects", .product(name: "SchedulerHarness", package: "SchedulerBehaviour")],
            path: "Sources/MatrixConformance",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "matrix-stress",
            dependencies: ["ThirdPartySubjects", .product(name: "SchedulerHarness", package: "SchedulerBehaviour")],
            path: "Sources/MatrixStress",
            swiftSettings: strict
        ),
        .testTarget(
            name: "ThirdPartySubjectsTests",
            dependencies: [
                "ThirdPartySubjects", "matrix-conformance",
                .product(name: "CombineSchedulers", package: "combine-schedulers"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Schedulers", package: "SchedulerBehaviour"),
                .product(name: "SchedulerConformance", package: "SchedulerBehaviour"),
                .product(name: "SchedulerProbes", package: "SchedulerBehaviour"),
                .product(name: "SchedulerStress", package: "SchedulerBehaviour"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            swiftSettings: strict
        ),
    ]
)
