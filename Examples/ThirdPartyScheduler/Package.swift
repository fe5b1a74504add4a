// swift-tools-version: 6.1
import PackageDescription

// A third party's package: its own scheduler, checked by the conformance suite from its
// own `swift test`. It depends on the suite by path here; yours would use the URL.
let package = Package(
    name: "ThirdPartyScheduler",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "SchedulerBehaviour", path: "../.."),
    ],
    targets: [
        .target(
            name: "WorkerThreadScheduler",
            dependencies: [.product(name: "Schedulers", package: "SchedulerBehaviour")]
        ),
        .testTarget(
            name: "WorkerThreadSchedulerTests",
            dependencies: [
                "WorkerThreadScheduler",
                .product(name: "SchedulerConformance", package: "SchedulerBehaviour"),
                .product(name: "SchedulerConformanceTesting", package: "SchedulerBehaviour"),
            ]
        ),
    ]
)
