// swift-tools-version: 6.1
import PackageDescription

// A third party's package: its own scheduler, checked by the conformance suite from its
// own `swift test`, and the suite's two command-line tools built for it (an executable of
// a few lines each). It depends on the suite by path here; yours would use the URL.
let package = Package(
    name: "ThirdPartyScheduler",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "SchedulerBehaviour", path: "../..")
    ],
    targets: [
        .target(
            name: "WorkerThreadScheduler",
            dependencies: [.product(name: "Schedulers", package: "SchedulerBehaviour")]
        ),
        .target(
            name: "WorkerThreadSubjects",
            dependencies: [
                "WorkerThreadScheduler",
                .product(name: "Schedulers", package: "SchedulerBehaviour"),
                .product(name: "SchedulerConformance", package: "SchedulerBehaviour"),
            ]
        ),
        .executableTarget(
            name: "worker-thread-conformance",
            dependencies: ["WorkerThreadSubjects", .product(name: "SchedulerHarness", package: "SchedulerBehaviour")],
            path: "Sources/WorkerThreadConformance"
        ),
        .executableTarget(
            name: "worker-thread-stress",
            dependencies: ["WorkerThreadSubjects", .product(name: "SchedulerHarness", package: "SchedulerBehaviour")],
            path: "Sources/WorkerThreadStress"
        ),
        .testTarget(
            name: "WorkerThreadSchedulerTests",
            dependencies: [
                "WorkerThreadScheduler", "WorkerThreadSubjects", "worker-thread-conformance",
                .product(name: "SchedulerConformance", package: "SchedulerBehaviour"),
                .product(name: "SchedulerConformanceTesting", package: "SchedulerBehaviour"),
                .product(name: "SchedulerVocabulary", package: "SchedulerBehaviour"),
            ]
        ),
    ]
)
