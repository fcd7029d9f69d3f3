import ArgumentParser
import AudioSession
import Foundation
import SessionBus

/// `audiosessionctl status`: every session, its category and state, the route, silent mode.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show sessions, categories, states and the current route.")

    @OptionGroup var connection: DaemonConnectionOptions

    @Flag(help: "One JSON object (for scripts) instead of a table.")
    var json = false

    func run() async throws {
        try await reportingDaemonProblems {
            let manager = try connection.manager()
            defer { manager.close() }
            let silent = try await manager.silentMode()
            let locked = try await manager.screenLocked()
            let asleep = try await manager.isAsleep()
            let rules = try await manager.rules()
            let linking = try await manager.linking()
            let headsets = try await manager.headsetSwitching()
            let conflicts = try await manager.conflicts()
            let server = try await manager.audioServer()
            let route = try await manager.currentRoute()
            let available = try await manager.availablePorts()
            let clock = try await manager.graphClock()
            let sessions = try await manager.sessions()
            if json {
                var object: [String: Any] = [
                    "silentMode": silent,
                    "screenLocked": locked,
                    "asleep": asleep,
                    "rules": rules.map { ["files": $0.files, "reads": $0.reads, "reason": $0.reason, "outcome": $0.outcome, "error": $0.error] }
                        ?? [String: Any](),
                    "linking": linking,
                    "headsetSwitching": headsets,
                    "conflicts": conflicts,
                    "audioServer": server,
                    "currentRoute": ["inputs": route.inputs.map(Self.port), "outputs": route.outputs.map(Self.port)],
                    "availableInputs": available.inputs.map(Self.port),
                    "availableOutputs": available.outputs.map(Self.port),
                    "sessions": sessions.map { $0.mapValues(JSONValues.object) },
                    "nowPlaying": Self.nowPlaying(in: sessions)?["id"]?.uint64Value ?? 0,
                ]
                if let clock {
                    object["hardware"] = [
                        "sampleRate": clock.sampleRate, "ioBufferDuration": clock.ioBufferDuration, "quantum": clock.quantum,
                        "running": clock.isRunning,
                    ]
                }
                print(JSONValues.line(object))
            } else {
                print(Self.table(
                    sessions: sessions, silent: silent, locked: locked, server: server, linking: linking, headsets: headsets,
                    conflicts: conflicts, route: route, available: available, clock: clock, rules: rules))
            }
        }
    }

    /// The current media player's entry (``listing``'s `nowPlaying`), if any.
    static func nowPlaying(in sessions: [[String: BusValue]]) -> [String: BusValue]? {
        sessions.first { $0["nowPlaying"]?.boolValue == true }
    }

    /// "48000 Hz, 256 frames (5.3 ms): the graph runs at this now".
    static func describe(_ clock: GraphClock) -> String {
        let milliseconds = String(format: "%.1f", clock.ioBufferDuration * 1000)
        return "\(Int(clock.sampleRate)) Hz, \(clock.quantum) frames (\(milliseconds) ms)"
            + (clock.isRunning ? ": the graph runs at this now" : ": nothing runs; what the graph will run at")
    }

    static func port(_ port: PortDescription) -> [String: Any] {
        ["uid": port.uid, "name": port.portName, "type": port.portType?.wireName ?? "unknown", "channels": port.channels]
    }

    /// The vouched app id, and the name it gives itself when that differs: `python3 (zoom)`.
    static func app(_ session: [String: BusValue]) -> String {
        let app = session["app"]?.stringValue ?? ""
        let label = session["label"]?.stringValue ?? ""
        return label.isEmpty || label == app ? app : "\(app) (\(label))"
    }

    static func table(
        sessions: [[String: BusValue]], silent: Bool, locked: Bool = false, server: String = "", linking: String = "", headsets: String = "",
        conflicts: [String] = [], route: RouteDescription, available: RouteDescription = RouteDescription(),
        clock: GraphClock? = nil, rules: RulesState? = nil
    ) -> String {
        var lines = [
            "audio server: \(server.isEmpty ? "unknown (an older daemon)" : server)",
            "hardware: \(clock.map(describe) ?? "unknown (an older daemon)")",
            "silent mode: \(silent ? "on" : "off")\(locked ? " (the screen is locked: silenced as if on)" : "")",
            "rules: \(rules?.summary ?? "unknown (an older daemon)")",
            "linking: \(linking.isEmpty ? "unknown (an older daemon)" : linking)",
            "headsets: \(headsets.isEmpty ? "unknown (an older daemon)" : headsets)",
        ] + conflicts.map { "conflict: \($0)" } + [
            "route: out \(route.outputs.map(\.description).joined(separator: ", ")) · in \(route.inputs.map(\.description).joined(separator: ", "))",
            "ports: out \(available.outputs.map(\.description).joined(separator: ", ")) · in \(available.inputs.map(\.description).joined(separator: ", "))",
            "now playing: " + (nowPlaying(in: sessions).map {
                "\($0["id"]?.uint64Value.map(String.init) ?? "?") \(app($0)) (media keys go there)"
            } ?? "none"),
            "",
        ]
        let header = ["ID", "KIND", "APP", "CATEGORY", "MODE", "OPTIONS", "STATE", "GAIN", "STREAMS", "WHY", "ROUTE"]
        var rows = [header]
        for session in sessions {
            let options = session["options"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ",") ?? ""
            var state = session["activity"]?.stringValue ?? ""
            if session["silenced"]?.boolValue == true { state += " silenced" }
            if session["captureSilenced"]?.boolValue == true { state += " mic-silenced" }
            if session["heldByMutedInput"]?.boolValue == true { state += " (microphone muted)" }
            // Our pause of its media player for an interruption (MPRIS).
            if let pause = session["mprisPause"]?.stringValue, pause != "none" { state += " player-\(pause)" }
            let routeText = RouteDescriptionText.from(session["route"])
            rows.append([
                session["id"]?.uint64Value.map(String.init) ?? "?",
                session["kind"]?.stringValue ?? "",
                Self.app(session),
                session["category"]?.stringValue ?? "",
                session["mode"]?.stringValue ?? "",
                options.isEmpty ? "-" : options,
                state,
                String(format: "%.2f", session["gain"]?.doubleValue ?? 1),
                String(session["streams"]?.arrayValue?.count ?? 0),
                session["classifiedBy"]?.stringValue ?? "-",
                routeText,
            ])
        }
        if sessions.isEmpty { return (lines + ["no sessions"]).joined(separator: "\n") }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            lines.append(row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
        // WHY, spelled out once per reason that appears.
        var explained: Set<String> = []
        for session in sessions {
            guard let reason = session["classifiedBy"]?.stringValue, let why = session["classifiedWhy"]?.stringValue,
                explained.insert(reason).inserted
            else { continue }
            if explained.count == 1 { lines.append("") }
            lines.append("\(reason): \(why)")
        }
        return lines.joined(separator: "\n")
    }
}

/// A route value as `out a (headphones),b (usbAudio) in c (builtInMic)`: each port's uid and type.
enum RouteDescriptionText {
    static func from(_ value: BusValue?) -> String {
        let fields = value?.structureValue ?? []
        func uids(_ index: Int) -> String {
            guard index < fields.count else { return "" }
            return fields[index].arrayValue?.compactMap { port -> String? in
                guard let fields = port.structureValue, let uid = fields.first?.stringValue else { return nil }
                return fields.count > 2 ? "\(uid) (\(fields[2].stringValue ?? "?"))" : uid
            }.joined(separator: ",") ?? ""
        }
        let outputs = uids(1), inputs = uids(0)
        return [outputs.isEmpty ? nil : "out \(outputs)", inputs.isEmpty ? nil : "in \(inputs)"].compactMap { $0 }
            .joined(separator: " ")
    }
}
