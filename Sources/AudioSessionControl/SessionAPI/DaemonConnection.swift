import ArgumentParser
import AudioSession
import Foundation
import SessionBus

/// How the session-API subcommands reach the daemon, and how they fail: one clear line on
/// stderr and a non-zero exit (the daemon not running is the common case).
struct DaemonConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("D-Bus address of the bus to use (default: the session bus).", valueName: "address"))
    var busAddress: String?

    func manager() throws -> AudioSessionManager {
        do {
            return try AudioSessionManager(address: busAddress)
        } catch {
            throw DaemonProblem(error)
        }
    }
}

/// A failure to talk to the daemon, printed as one line.
struct DaemonProblem: Error, CustomStringConvertible {
    let description: String
    init(_ failure: AudioSessionFailure) { description = failure.message }
    init(_ text: String) { description = text }
}

/// Runs a subcommand's body; a daemon failure becomes one line on stderr and exit status 1.
func reportingDaemonProblems(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as AudioSessionFailure {
        FileHandle.standardError.write(Data("audiosessionctl: \(failure.message)\n".utf8))
        throw ExitCode(1)
    } catch let problem as DaemonProblem {
        FileHandle.standardError.write(Data("audiosessionctl: \(problem.description)\n".utf8))
        throw ExitCode(1)
    }
}

/// Bus values as JSON-ready Foundation values (for `--json`).
enum JSONValues {
    static func object(_ value: BusValue) -> Any {
        switch value {
        case .byte(let v): Int(v)
        case .bool(let v): v
        case .int16(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int64(let v): Int(v)
        case .uint64(let v): v
        case .double(let v): v.isFinite ? v : 0
        case .string(let v), .objectPath(let v), .signature(let v): v
        case .variant(let inner): object(inner)
        case .unixFD: NSNull()
        case .dictEntry(let key, let value): [key.description: object(value)]
        case .array(let element, let items):
            if element.hasPrefix("{"), let dictionary = value.dictionaryValue {
                dictionary.mapValues(object)
            } else if element == "(sssu)" {
                items.compactMap(port)
            } else {
                items.map(object)
            }
        case .structure(let fields):
            if fields.count == 2, fields.allSatisfy({ $0.signature == "a(sssu)" }) {
                ["inputs": object(fields[0]), "outputs": object(fields[1])]
            } else if let port = port(value) {
                port
            } else {
                fields.map(object)
            }
        }
    }

    /// A `(sssu)` port as `{uid, name, type, channels}`.
    static func port(_ value: BusValue) -> [String: Any]? {
        guard value.signature == "(sssu)", let fields = value.structureValue else { return nil }
        return ["uid": fields[0].stringValue ?? "", "name": fields[1].stringValue ?? "",
                "type": fields[2].stringValue ?? "", "channels": Int(fields[3].uint32Value ?? 0)]
    }

    static func line(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
