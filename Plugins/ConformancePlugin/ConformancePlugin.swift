import PackagePlugin

/// `swift package conformance`: builds the package's `*-conformance` tools in release and runs
/// them, reports under `Reports/conformance`.
@main struct ConformancePlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try HarnessTool(suffix: "-conformance", verb: "conformance", reportFolder: "conformance").run(
            context: context, arguments: arguments, packageManager: packageManager)
    }
}
