import SchedulerProbes
import SchedulerVocabulary

extension Signal {
    /// Watches for a firing that must not happen while a thread that may cause it could
    /// still be waiting for a core: true once it fired; false once a whole `window` passed in
    /// which the calling thread, waking every millisecond, was never kept from its core for
    /// more than a tenth of the window (so another thread of the process that was ready to
    /// run got to run too); nil when no such window came within `bound`.
    ///
    /// A plain wait of `window` proves nothing on a loaded machine: the thread whose early
    /// run a rule must see can be held off its core for longer than the whole window.
    func watchThroughResponsiveWindow(_ window: Duration, bound: Duration) -> Bool? {
        let clock = ContinuousClock()
        let tick = Duration.milliseconds(1)
        let held = max(window / 10, .milliseconds(2))
        let giveUp = clock.now + bound
        var last = clock.now
        var responsiveSince = last
        while !wait(tick) {
            let now = clock.now
            if now - last > tick + held { responsiveSince = now }
            last = now
            if now - responsiveSince >= window { return false }
            if now >= giveUp { return nil }
        }
        return true
    }
}
