import ArgumentParser
import CommandSupport
import Foundation
import SchedulerProbes
import SchedulerStress
import SchedulerVocabulary
import Schedulers
import Synchronization

/// A failure of `instructions` that is not bad usage: printed, exit 1.
enum InstructionFailure: Error, CustomStringConvertible {
    case failed(String)

    var description: String {
        switch self {
        case .failed(let message): message
        }
    }
}
