/// Classifies an app (an implicit session) from what its streams are and do.
///
/// The rules classify streams; an app is more than its streams taken one by one. A browser's
/// output looks the same for music and for a call, and most recorders and call apps set no
/// role: what tells them apart is what runs at the same time. So:
///
/// - The app takes the classification of its leading stream: the highest class among the
///   streams that run (among all of them while none runs), a configured category before the
///   default one.
/// - An app no rule classifies whose playback ran longer than a short sound
///   (``AppBehaviour/shortSoundLimit``) is media `playback`: a player or a game the rules do
///   not name, which silent mode must not mute. Short sounds (beeps) keep the default.
/// - An app whose leading category has no input but that captures gets one with input:
///   - from a microphone while it plays: a call (the rules' classification of a
///     `Communication` stream), for as long as both run;
///   - from a microphone only: `record`, in its own class;
///   - from a monitor (what plays): `playAndRecord` mixing with others — recording the
///     output must not change it.
/// - A category with input that the rules gave (a DAW, `Production`, an assistant, a call
///   app) is theirs: no heuristic overrides it.
public struct AppComposition: Hashable, Sendable {
    /// What a call is: the rules' classification of a stream with `media.role = Communication`.
    public var call: Classification
    /// What the rules give a stream they say nothing about (``PolicyConfiguration/defaultClassification``).
    public var unclassified: Classification

    public init(call: Classification, unclassified: Classification = .unconfigured) {
        self.call = call
        self.unclassified = unclassified
    }

    public func classify(_ streams: [AppStream]) -> AppClassification {
        let running = streams.filter(\.isRunning)
        var leading = Self.leading(running.isEmpty ? streams : running) ?? .unconfigured
        guard !leading.category.hasInput else { return AppClassification(leading, reason: .rules) }
        var reason = AppClassificationReason.rules
        if leading == unclassified, streams.contains(where: { $0.direction == .playback && $0.hasPlayedLong }) {
            leading = Classification(category: .playback, priorityClass: unclassified.priorityClass)
            reason = .playing
        }

        let capturing = running.filter { $0.direction == .capture }
        guard !capturing.isEmpty else { return AppClassification(leading, reason: reason) }
        let fromMicrophone = capturing.contains { !$0.capturesMonitor }
        let plays = running.contains { $0.direction == .playback }

        if fromMicrophone && plays {
            if leading.priorityClass.priority < call.priorityClass.priority {
                return AppClassification(call, reason: .call)
            }
            var result = leading  // a higher class than a call's keeps its class, with input
            result.category = .playAndRecord
            return AppClassification(result, reason: .call)
        }
        var result = leading
        if fromMicrophone {
            result.category = .record
            result.mode = .default
            result.options = []
            return AppClassification(result, reason: .recording)
        }
        result.category = .playAndRecord
        result.mode = .default
        result.options = [.mixWithOthers]
        return AppClassification(result, reason: .monitoring)
    }

    /// Whether the change from `current` to `next` waits ``AppBehaviour/callHoldover`` before it
    /// is made: a call that stops being one while a stream of it still runs (an end of the call
    /// opening its speaker or microphone again). If it is a call again by then, nothing changed.
    /// A call whose streams all stopped is over at once.
    public static func holdsOver(from current: AppClassification, to next: AppClassification, streams: [AppStream]) -> Bool {
        current.reason == .call && next.reason != .call && streams.contains(where: \.isRunning)
    }

    /// The highest class; among equals, a configured category before the unconfigured
    /// `soloAmbient`; then the first.
    static func leading(_ streams: [AppStream]) -> Classification? {
        var best: Classification?
        for stream in streams {
            let candidate = stream.classification
            guard let current = best else {
                best = candidate
                continue
            }
            let higher = candidate.priorityClass.priority > current.priorityClass.priority
            let sameClass = candidate.priorityClass.priority == current.priorityClass.priority
            if higher || (sameClass && current.category == .soloAmbient && candidate.category != .soloAmbient) {
                best = candidate
            }
        }
        return best
    }
}
