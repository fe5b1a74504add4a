import PackagePlugin

/// `swift package stress`: builds the package's `*-stress` tools in release and runs them,
/// reports under `Reports/stress`.
@main struct StressPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try HarnessTool(suffix: "-stress", verb: "stress", reportFolder: "stress").run(
            context: context, arguments: arguments, packageManager: packageManager)
    }
}
