import SessionPolicy

/// `rules explain`: for each stream, its classification and the rules behind it, as text.
/// Pure, so the CLI (classifying with the rules on disk) and the daemon (with the rule set
/// it runs) print the same thing.
public enum RulesExplanation {
    /// One stream to explain.
    public struct Stream: Hashable, Sendable {
        /// PipeWire global id of the node.
        public var id: UInt32
        /// A human name: `application.name: media.name`, or the node name.
        public var name: String
        public var classification: StreamClassification

        public init(id: UInt32, name: String, classification: StreamClassification) {
            self.id = id
            self.name = name
            self.classification = classification
        }

        /// Names a stream from its (merged) properties.
        public static func name(properties: [String: String], nodeName: String) -> String {
            let application = properties["application.name"]
            let media = properties["media.name"]
            switch (application, media) {
            case let (application?, media?): return "\(application): \(media)"
            case let (application?, nil): return application
            case let (nil, media?): return media
            case (nil, nil): return nodeName
            }
        }
    }

    /// One app (an implicit session): its streams and what they make it.
    public struct App: Hashable, Sendable {
        public var identity: AppIdentity
        public var streams: [UInt32]
        public var classification: AppClassification

        public init(identity: AppIdentity, streams: [UInt32], classification: AppClassification) {
            self.identity = identity
            self.streams = streams
            self.classification = classification
        }
    }

    /// The report: the rule files in force, then each stream (by id) with its explanation,
    /// then each app with the classification its streams make together, and why.
    public static func text(_ streams: [Stream], apps: [App] = [], ruleSet: RuleSet) -> String {
        var lines = ["rules: \(ruleSet.files.count) file\(ruleSet.files.count == 1 ? "" : "s") (profile \(ruleSet.configuration.profile.wireName))"]
        lines += ruleSet.files.map { "  \($0)" }
        if streams.isEmpty { lines.append("no streams") }
        for stream in streams.sorted(by: { $0.id < $1.id }) {
            lines.append("")
            lines.append("stream \(stream.id) \(stream.name)")
            lines += stream.classification.explanation.map { "  \($0)" }
        }
        for app in apps.sorted(by: { ($0.streams.first ?? 0) < ($1.streams.first ?? 0) }) {
            let c = app.classification.classification
            lines.append("")
            lines.append("app \(app.identity) (streams \(app.streams.sorted().map(String.init).joined(separator: " ")))")
            lines.append("  session: category \(c.category.wireName), mode \(c.mode.wireName), class \(c.priorityClass.name)")
            lines.append("  why: \(app.classification.reason.explanation)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
