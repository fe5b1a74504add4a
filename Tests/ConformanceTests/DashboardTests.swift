import Foundation
import SchedulerConformance
import SchedulerVocabulary
import Schedulers
import Subprocess
import TestSupport
import Testing

/// `make dashboard`'s page, from real reports of both commands, opened as a reader opens it:
/// in a browser (headless Chromium, which CI installs), with no script error, every chart
/// drawn, and a screenshot that is not blank.
@Suite(.serialized) struct DashboardTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let stressExecutable = URL(fileURLWithPath: CommandTests.executable).deletingLastPathComponent()
        .appendingPathComponent("stress").path

    /// Reports of both commands (a failing mutant among the subjects, two stress nights), and
    /// the dashboard made from them; the folder. Made once for the suite's tests, which only
    /// read it (each made its own before: three conformance runs and six stress nights where
    /// one and two show the same).
    static let dashboard = Task { try await makeDashboard() }
    /// The soak reads jemalloc's heap: not where it is not installed (an optional package, which
    /// CI installs), nor in a sanitizer build, which replaces the allocator with its own.
    static let soaks =
        !ThreadSanitizerBuild.isEnabled
        && ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"]
            .contains { FileManager.default.fileExists(atPath: $0 + "/libjemalloc.so.2") }

    private static func makeDashboard() async throws -> URL {
        let folder = CommandTests.temporaryFolder()
        _ = try await CommandTests.conformance([
            "run", "--subject", "queue,test,mutant-lifo", "--category", "ORD,VT", "--quiet", "--report-dir",
            folder.path,
        ])
        for _ in 1...2 {
            let night = try await Subprocess.run(
                .path(.init(stressExecutable)),
                arguments: [
                    "run", "--scenario", soaks ? "throughput,fan-in,growth,soak" : "throughput,fan-in,growth",
                    "--subject", "queue,immediate", "--duration", "0.5",
                    "--report-dir", folder.appendingPathComponent("stress").path,
                ],
                output: .string(limit: 1 << 20), error: .discarded
            )
            #expect(night.terminationStatus == .exited(0), "\(night.standardOutput)")
        }
        let outcome = try await CommandTests.conformance([
            "dashboard", "--conformance", folder.appendingPathComponent("conformance.json").path,
            "--stress", folder.appendingPathComponent("stress/latest.json").path, "--history",
            folder.appendingPathComponent("stress").path,
            "--output", folder.appendingPathComponent("dashboard/index.html").path,
        ])
        #expect(outcome.status == .exited(0), "\(outcome.error)")
        return folder
    }

    @Test func everyCellLinksToWhatWasObservedOrToItsRule() async throws {
        let folder = try await Self.dashboard.value
        let page = try String(contentsOf: folder.appendingPathComponent("dashboard/index.html"), encoding: .utf8)
        // A passing cell links to its rule; a failing one to the observation, which links on.
        #expect(page.contains(##"<td class="passed"><a href="#rule-ORD-1""##))
        #expect(page.contains(##"<td class="failed"><a href="#obs-mutant-lifo-ORD-1""##))
        #expect(
            page.contains(
                ##"<li id="obs-mutant-lifo-ORD-1"><b class="failed">failed</b> mutant-lifo × <a href="#rule-ORD-1">"##))
        #expect(page.contains(##"<dt id="rule-ORD-1">"##) && page.contains("If it fails, check:"))
        #expect(
            page.contains("Trends over the last 2 runs") && page.contains("Chart.js v3.9.1"),
            "trends and the inlined plotting library")
        #expect(!page.contains("src=\"http"), "the page needs no network")
        #expect(
            page.contains("<h3>Growth: cost per action") && page.contains(#""section":"growth""#),
            "the growth curves are plotted")
        #expect(
            !Self.soaks || (page.contains("<h3>Soak: the heap") && page.contains(#""section":"soak""#)),
            "the soak's memory is plotted")
    }

    @Test func aMutationReportGetsItsScoreKillersAndSurvivors() async throws {
        let folder = CommandTests.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var survivor = MutationTests.result(2, .survived)
        survivor.context = "Queue.<drain>()"
        let report = MutationTests.report([MutationTests.result(1, .killed), survivor])
        let json = folder.appendingPathComponent("mutation.json")
        try report.jsonData().write(to: json)
        let output = folder.appendingPathComponent("index.html")
        let outcome = try await CommandTests.conformance([
            "dashboard", "--mutation", json.path, "--output", output.path,
        ])
        #expect(outcome.status == .exited(0), "\(outcome.error)")
        let page = try String(contentsOf: output, encoding: .utf8)
        #expect(page.contains("Score 50.0 %: 1 of 2 scored mutants killed; 1 survived (0 reached by no rule)"))
        #expect(page.contains(##"<a href="#rule-ORD-1">ORD-1</a> 1"##), "the rule that killed first")
        #expect(page.contains(##"<li id="mutant-2"><b class="failed">survived</b> A.swift:2"##))
        #expect(page.contains("<code>Queue.&lt;drain&gt;()</code>"), "code is escaped")
    }

    @Test func namesFromReportsCannotBreakThePage() async throws {
        let folder = try await Self.dashboard.value
        // A subject whose name would end the data's script element and open a comment, in
        // copies of the reports (the other tests read the originals).
        let hostile = "</script><!--<b>x"
        var renamed: [URL] = []
        for file in ["conformance.json", "stress/latest.json"] {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let copy = folder.appendingPathComponent("hostile-" + file.replacingOccurrences(of: "/", with: "-"))
            try Data(
                text.replacingOccurrences(
                    of: #""queue""#, with: "\"" + hostile.replacingOccurrences(of: "/", with: "\\/") + "\""
                ).utf8
            ).write(to: copy)
            renamed.append(copy)
        }
        let output = folder.appendingPathComponent("dashboard/hostile.html")
        let outcome = try await CommandTests.conformance([
            "dashboard", "--conformance", renamed[0].path, "--stress", renamed[1].path, "--output", output.path,
        ])
        #expect(outcome.status == .exited(0), "\(outcome.error)")
        let page = try String(contentsOf: output, encoding: .utf8)
        #expect(!page.contains(hostile), "the name reached the page unescaped")
        #expect(page.contains("&lt;/script&gt;&lt;!--&lt;b&gt;x"), "the name is shown, escaped")
        #expect(page.components(separatedBy: "</script>").count == 5, "exactly the page's own four scripts end")
    }

    @Test(.nightly("loads the page in headless Chromium, which make nightly installs"))
    func itLoadsInABrowserWithoutErrorsAndDrawsEveryChart() async throws {
        try #require(Self.chromium != nil, "headless Chromium is not installed: apt-get install chromium")
        let folder = try await Self.dashboard.value
        let page = folder.appendingPathComponent("dashboard/index.html")
        let browser = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
        ]
        let dom = try await Subprocess.run(
            .path(.init(Self.chromium!)), arguments: .init(browser + ["--dump-dom", page.absoluteString]),
            output: .string(limit: 1 << 24), error: .string(limit: 1 << 22)
        )
        #expect(dom.terminationStatus == .exited(0), "\(dom.standardError)")
        let body = try #require(
            dom.standardOutput.firstMatch(of: /<body data-charts="(\d+)" data-errors="(\d+)">/),
            "the page's script never ran")
        // Every chart in the page's data is drawn: latency, benchmarks and trends.
        let html = try String(contentsOf: page, encoding: .utf8)
        let planned = html.ranges(of: #""kind":"#).count
        #expect(planned >= 6 && Int(body.1) == planned, "charts drawn: \(body.1) of \(planned)")
        #expect(
            body.2 == "0",
            """
            script errors on the page: \
            \(dom.standardOutput.firstMatch(of: /<ul id="errors">.*?<\/ul>/).map { String($0.0) } ?? "")
            """
        )
        #expect(!dom.standardError.contains("Uncaught"), "\(dom.standardError)")

        // A screenshot of the page against one of an empty page of the same size.
        func screenshot(_ url: URL, _ name: String) async throws -> (width: UInt32, height: UInt32, bytes: Int) {
            let file = folder.appendingPathComponent(name)
            let shot = try await Subprocess.run(
                .path(.init(Self.chromium!)),
                arguments: .init(
                    browser + ["--window-size=1280,2000", "--screenshot=\(file.path)", url.absoluteString]),
                output: .discarded, error: .discarded
            )
            #expect(shot.terminationStatus == .exited(0))
            let png = try Data(contentsOf: file)
            try #require(
                png.count > 24 && png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "not a PNG")
            let header = [UInt8](png[16..<24])
            let width = header[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let height = header[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return (width, height, png.count)
        }
        let empty = folder.appendingPathComponent("empty.html")
        try Data("<!doctype html><html><body></body></html>".utf8).write(to: empty)
        let dashboard = try await screenshot(page, "dashboard.png")
        let blank = try await screenshot(empty, "blank.png")
        #expect(dashboard.width == 1280 && dashboard.height == 2000)
        #expect(
            dashboard.bytes > blank.bytes * 10,
            "the screenshot is as plain as an empty page: \(dashboard.bytes) bytes against \(blank.bytes)")
    }
}
