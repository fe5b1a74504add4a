import Foundation
import TestSupport
import Testing

/// The documentation `make docs` builds (`make test` does first): each module's page and every
/// article renders in a browser (headless Chromium, which `make nightly` installs), and every link the
/// rendered pages make to another page of the documentation leads to one that exists.
@Suite struct DocumentationTests {
    static let root = CommandTests.packageRoot.appendingPathComponent(".build/docs")

    @Test(.nightly("follows every link in headless Chromium, which make nightly installs"))
    func everyPageRendersAndEveryInternalLinkLeadsToAPage() async throws {
        try #require(DashboardTests.chromium != nil, "headless Chromium is not installed: apt-get install chromium")
        let data = Self.root.appendingPathComponent("data/documentation")
        try #require(
            FileManager.default.fileExists(atPath: data.path),
            "no documentation in \(Self.root.path): run `make docs` (`make test` does)")
        let pages = try Self.startingPages(in: data)
        #expect(pages.count >= 12, "the three module pages and the articles: \(pages)")
        let server = try StaticServer(serving: Self.root)
        defer { server.stop() }
        var broken: [String] = []
        var followed = 0
        for page in pages {
            let dom = try Self.renderedPage("http://127.0.0.1:\(server.port)\(page)")
            #expect(dom.contains("<h1"), "\(page) did not render")
            #expect(!dom.contains("can't be found"), "\(page) renders as not found")
            // Split, not a regex: Swift's regexes take minutes over a page this size in a debug build.
            for piece in dom.components(separatedBy: "href=\"/documentation/").dropFirst() {
                followed += 1
                let path = piece.prefix { $0 != "\"" && $0 != "#" && $0 != "?" }
                let target = "documentation/" + path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
                if !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("data/\(target).json").path)
                {
                    broken.append("\(page) → /\(target)")
                }
            }
        }
        #expect(followed > pages.count, "the pages rendered no links to follow")
        #expect(broken.isEmpty, "broken links: \(Set(broken).sorted().joined(separator: ", "))")
    }

    /// The page at `url` as headless Chromium renders it (its DOM after the scripts ran), or
    /// what it printed within 60 s.
    static func renderedPage(_ url: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("page-\(UUID().uuidString).html")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: DashboardTests.chromium!)
        // The page renders from JSON it fetches after it loaded: without a virtual-time budget
        // a loaded machine's Chromium dumps the DOM before the fetch is back (the suite saw a
        // run with every link missing). The budget lets the page's fetches and timers finish,
        // skipping the idle time in between.
        browser.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=30000", "--dump-dom", url,
        ]
        browser.standardOutput = try FileHandle(forWritingTo: file)
        browser.standardError = FileHandle.nullDevice
        try browser.run()
        let deadline = Date().addingTimeInterval(60)
        while browser.isRunning, Date() < deadline { usleep(20_000) }
        if browser.isRunning { kill(browser.processIdentifier, SIGKILL) }
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }

    /// The URL paths of each module's page and of every article.
    static func startingPages(in data: URL) throws -> [String] {
        var pages: [String] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: data.path) where module.hasSuffix(".json") {
            let name = String(module.dropLast(5))
            pages.append("/documentation/\(name)")
            let folder = data.appendingPathComponent(name)
            for file in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            where file.hasSuffix(".json") {
                let json = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                if json.contains(#""role":"article""#) || json.contains(#""role" : "article""#) {
                    pages.append("/documentation/\(name)/\(file.dropLast(5))")
                }
            }
        }
        return pages.sorted()
    }
}

/// A static HTTP server on a free loopback port (Python's), for pages that fetch their data
/// and so cannot be opened from `file://`.
final class StaticServer: Sendable {
    let port: Int
    private let process: Process

    init(serving folder: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", folder.path,
        ]
        // Its first line names the port it took: "Serving HTTP on 127.0.0.1 port 40123 …". To a
        // file, read until it is there (at most ten seconds).
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("server-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = FileHandle.nullDevice
        try process.run()
        var port: Int?
        for _ in 0..<200 where port == nil {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "port "), text[range.upperBound...].contains(" ") {
                port = Int(text[range.upperBound...].prefix { $0.isNumber })
            } else {
                usleep(50_000)
            }
        }
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(
                .fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the documentation server never said its port"])
        }
        self.port = port
        self.process = process
    }

    /// Kills the server: SIGKILL, since a child may inherit a mask that blocks SIGTERM.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
