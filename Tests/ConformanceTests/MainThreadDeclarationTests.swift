import Dispatch
import Foundation
import SchedulerConformance
import SchedulerMutants
import SchedulerProbes
import Schedulers
import TestSupport
import Testing
import XCTest

/// ORD-5 calls a main-thread scheduler from the main thread, which XCTest drives (Swift
/// Testing's is not): RxSwift's `MainScheduler` shape passes once it declares that it runs
/// inline when idle, names the declaration when it does not, and the reference main-thread
/// scheduler does not earn the declaration.
final class MainThreadScheduleDeclarationXCTests: XCTestCase {
    private func ord5(_ subject: ConformanceSubject) -> RuleResult {
        ConformanceRunner.run(subject, rules: [RuleCatalogue.rule(.ord5)], timing: MutantKillTests.timing)[0]
    }

    func testAMainSchedulerThatRunsInlineWhenIdlePassesWhenItSaysSo() throws {
        XCTAssertTrue(Thread.isMainThread)
        let declared = ord5(Mutants.inlineWhenIdleMain)
        XCTAssertEqual(declared.status, .passed, declared.message ?? "")
        XCTAssertNil(declared.message, "the calls from the main thread were made")
        let undeclared = ord5(try XCTUnwrap(Mutants.named("mutant-main-inline-when-idle")).subject)
        XCTAssertEqual(undeclared.status, .failed)
        XCTAssertTrue(
            undeclared.message?.contains("declares `.declaring(.mainThreadSchedule(.inlineWhenIdle))`") == true,
            undeclared.message ?? "")
    }

    func testTheReferenceMainSchedulerFailsTheInlineDeclaration() {
        let main = ConformanceSubject(name: "main") { MainThreadScheduler.shared }
        XCTAssertEqual(ord5(main).status, .passed)
        let wrong = ord5(main.declaring(.mainThreadSchedule(.inlineWhenIdle)))
        XCTAssertEqual(wrong.status, .failed)
        XCTAssertTrue(
            wrong.message?.contains("did not run inline, though the subject declares") == true, wrong.message ?? "")
    }
}
