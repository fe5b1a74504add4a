import ArgumentParser
import Foundation
import SchedulerVocabulary

extension GeneratedSection {
    /// Prints `document`, or with a file `into`, replaces this section of it.
    /// - Throws: `ValidationError` with the ``GeneratedSection/Problem``.
    package func publish(_ document: String, into file: String?) throws {
        guard let file else { return print(document) }
        do { try replace(with: document, in: URL(fileURLWithPath: file)) } catch {
            throw ValidationError(error.description)
        }
    }
}
