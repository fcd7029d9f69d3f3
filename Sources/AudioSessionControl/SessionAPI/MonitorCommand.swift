import ArgumentParser
import AudioSession
import Foundation
import SessionBus

/// `audiosessionctl monitor`: the daemon's decisions as they happen.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Print policy decisions live (interruptions, ducking, routes, hardware) until interrupted.")

    @OptionGroup var connection: DaemonConnectionOptions

    @Flag(help: "One JSON object per line; the first, {\"signal\": \"Watching\"}, says it is subscribed.")
    var json = false

    func run() async throws {
        try await reportingDaemonProblems {
            let manager = try connection.manager()
            let events = try await manager.events()
            try await manager.ensureRunning()  // after subscribing: nothing between is lost
            // Once subscribed, before any decision: a script knows it misses nothing from here on.
            Self.emit(json ? JSONValues.line(["signal": "Watching", "time": Date().timeIntervalSince1970]) : "watching audiosessiond (Ctrl-C to stop)")
            for await signal in events {
                Self.emit(json ? Self.jsonLine(signal) : Self.text(signal))
            }
            throw DaemonProblem("the session bus connection closed")
        }
    }

    /// Unbuffered: a pipe reader sees each line as it happens.
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func jsonLine(_ signal: BusSignal) -> String {
        var object: [String: Any] = ["signal": signal.member]
        switch signal.member {
        case "Decision" where signal.arguments.count == 3:
            object["session"] = signal.arguments[0].uint64Value ?? 0
            object["kind"] = signal.arguments[1].stringValue ?? ""
            object["details"] = JSONValues.object(signal.arguments[2])
        case "RouteChange" where signal.arguments.count == 2:
            let reason = signal.arguments[0].uint32Value.flatMap { RouteChangeReason(rawValue: UInt($0)) }
            object["reason"] = reason?.wireName ?? "unknown"
            object["previousRoute"] = JSONValues.object(signal.arguments[1])
        case "RecordPermissionRequested":
            object["app"] = signal.arguments.first?.stringValue ?? ""
        default:
            break
        }
        object["time"] = Date().timeIntervalSince1970
        return JSONValues.line(object)
    }

    static func text(_ signal: BusSignal) -> String {
        let time = ISO8601DateFormatter.string(from: Date(), timeZone: .current, formatOptions: [.withTime, .withColonSeparatorInTime])
        switch signal.member {
        case "Decision" where signal.arguments.count == 3:
            let session = signal.arguments[0].uint64Value ?? 0
            let details = (signal.arguments[2].dictionaryValue ?? [:]).sorted { $0.key < $1.key }
                .map { "\($0.key)=\(Self.short($0.value))" }.joined(separator: " ")
            let who = session == 0 ? "system" : "session \(session)"
            return "\(time) \(who): \(signal.arguments[1].stringValue ?? "") \(details)"
        case "RouteChange":
            let reason = signal.arguments.first?.uint32Value.flatMap { RouteChangeReason(rawValue: UInt($0)) }
            return "\(time) system route changed (\(reason?.wireName ?? "unknown"))"
        case "RecordPermissionRequested":
            return "\(time) '\(signal.arguments.first?.stringValue ?? "")' asks for record permission"
        default:
            return "\(time) \(signal.member)"
        }
    }

    private static func short(_ value: BusValue) -> String {
        if value.signature == SessionRouteSignature.route { return RouteDescriptionText.from(value) }
        if let strings = value.arrayValue?.compactMap(\.stringValue), value.signature == "as" {
            return strings.joined(separator: ",")
        }
        return value.stringValue ?? value.description
    }
}

enum SessionRouteSignature {
    static let route = "(a(sssu)a(sssu))"
}
