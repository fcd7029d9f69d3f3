import AppProcesses
import ArgumentParser
import Foundation
import PipeWireGraph
import PolicyRules
import SessionPolicy

/// `audiosessionctl rules ...`: policy rules files.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Work with policy rules files (see docs/policy-rules.md).",
        subcommands: [RulesCheckCommand.self, RulesExplainCommand.self])
}

/// `audiosessionctl rules check FILE...`: validates files as the daemon would load them.
struct RulesCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate rules files; print each problem as file:line: reason.",
        discussion: """
            Each file is checked on its own and then layered on the shipped defaults, so it may \
            use priority classes they define. Exits 1 if any file has a problem.
            """)

    @Argument(help: "Rules files to check.")
    var files: [String]

    @Option(help: "Shipped rules directory to layer the files on (default: \(RuleLocations.shippedDirectoryVariable), the checkout's or the installed one).")
    var shipped: String?

    func run() throws {
        let result = RulesChecker.run(paths: files, shipped: shipped ?? RuleLocations.standard().shipped)
        print(result.output)
        if result.exitCode != 0 { throw ExitCode(result.exitCode) }
    }
}

/// `audiosessionctl rules explain`: which rule classified each current stream, and why.
///
/// Classification is pure, so this reads the streams from PipeWire and classifies them with
/// the rules on disk (the same layering as the daemon): no daemon needed. If the daemon kept
/// an older set after a failed reload, the failure is what this prints.
struct RulesExplainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show which rules classify each current stream, and why.")

    @Option(name: .customLong("rules"), help: "Extra rules directory, as audiosessiond --rules (repeatable).")
    var extraDirectories: [String] = []

    @Option(help: "PipeWire remote to connect to (a socket name or absolute path).")
    var remote: String?

    @Option(help: "Seconds to wait for PipeWire to answer.")
    var timeout: Double = 5

    func run() async throws {
        let ruleSet: RuleSet
        do {
            ruleSet = try RuleSetLoader(locations: .standard(extra: extraDirectories)).load()
        } catch {
            print(error.description)
            throw ExitCode.failure
        }
        let graph = PipeWireGraph(configuration: .init(remote: remote, applicationName: "audiosessionctl"))
        let events = graph.events()
        graph.start()
        defer { graph.stop() }
        switch await GraphCommand.waitForInitialSync(graph, events: events, timeout: .milliseconds(Int(timeout * 1000))) {
        case .synced(let snapshot):
            let seen = Self.streams(in: snapshot, ruleSet: ruleSet)
            let streams = seen.map { stream in
                RulesExplanation.Stream(
                    id: stream.node.id, name: RulesExplanation.Stream.name(properties: stream.properties, nodeName: stream.node.name),
                    classification: stream.classification)
            }
            print(RulesExplanation.text(streams, apps: Self.apps(of: seen, ruleSet: ruleSet), ruleSet: ruleSet), terminator: "")
        case .unreachable(let problem):
            FileHandle.standardError.write(Data("audiosessionctl: \(problem)\n".utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
    }

    /// One stream as the daemon sees it: its properties merged with its client's, its app (from
    /// what the system vouches for, read as the daemon reads it) and the rules' verdict on it.
    struct SeenStream {
        let node: Node
        let properties: [String: String]
        let identity: AppIdentity
        let classification: StreamClassification
    }

    static func streams(in snapshot: GraphSnapshot, ruleSet: RuleSet) -> [SeenStream] {
        snapshot.streams.map { node in
            let client = node.clientID.flatMap { snapshot.clients[$0] }
            let properties = (client?.properties ?? [:]).merging(node.properties) { _, nodeValue in nodeValue }
            var facts = client?.pid.map { AppFacts.reading(process: $0, connection: node.clientID ?? 0) }
                ?? AppFacts(connection: node.clientID ?? 0)
            if let portal = properties["pipewire.access.portal.app_id"] { facts.sandboxAppID = portal }
            let identity = AppIdentity(facts)
            return SeenStream(
                node: node, properties: properties, identity: identity,
                classification: ruleSet.classify(properties: facts.vouching(properties, as: identity)))
        }
    }

    /// The streams grouped into apps as the daemon groups them, each classified from all of its
    /// streams (a stream runs when its node does and its app has not corked it).
    static func apps(of streams: [SeenStream], ruleSet: RuleSet) -> [RulesExplanation.App] {
        let composition = ruleSet.appComposition
        var members: [AppIdentity: [(UInt32, AppStream)]] = [:]
        for seen in streams {
            let node = seen.node, properties = seen.properties
            let stream = AppStream(
                classification: seen.classification.classification,
                direction: node.mediaClass == "Stream/Input/Audio" ? .capture : .playback,
                isRunning: node.state == .running && !node.isCorked,
                capturesMonitor: properties["stream.capture.sink"] == "true" || properties["stream.monitor"] == "true")
            members[seen.identity, default: []].append((node.id, stream))
        }
        return members.map { identity, streams in
            RulesExplanation.App(
                identity: identity, streams: streams.map(\.0), classification: composition.classify(streams.map(\.1)))
        }
    }
}
