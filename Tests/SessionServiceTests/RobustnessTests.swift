import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// Fuzzed arguments and floods never crash or stall the daemon; the introspection XML in the
/// repository is exactly what the daemon serves.
@Suite("Session API robustness", .serialized)
struct RobustnessTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A deterministic generator (xorshift), so a failure can be replayed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
        mutating func string() -> String {
            pick(["", "playback", "playAndRecord", "voiceChat", "speaker", "none", "mic", "x", String(repeating: "ä", count: 300),
                  "\u{1}\u{7f}", "granted", "denied", "undetermined", "ambient", "default", "../../etc", "💥"])
        }
        mutating func double() -> Double {
            pick([.nan, -.nan, .infinity, -.infinity, 0, -0.0, -1, 1e-300, 1e300, 0.005, 48_000, 96_000, 8_000, 1e7, Double(next() % 200_000)])
        }
        mutating func bits() -> UInt32 { pick([0, 1, 2, 0x11, 0x10, 0xFF, 0x100, UInt32.max, UInt32(truncatingIfNeeded: next())]) }
    }

    @Test func fuzzedCallsNeverCrashTheDaemon() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let client = try sandbox.connect()
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15)
        var sessions: [SessionClient] = [try await SessionClient.create(on: client, app: "fuzz")]
        var refusals = 0
        for _ in 0..<600 {
            let session = generator.pick(sessions)
            let call: (String, [BusValue]) = switch generator.next() % 10 {
            case 0: ("SetCategory", [.string(generator.string()), .string(generator.string()), .uint32(generator.bits())])
            case 1: ("SetActive", [.bool(generator.next() % 2 == 0), .uint32(generator.bits())])
            case 2: ("SetPreferredSampleRate", [.double(generator.double())])
            case 3: ("SetPreferredIOBufferDuration", [.double(generator.double())])
            case 4: ("SetPreferredInput", [.string(generator.string())])
            case 5: ("OverrideOutputAudioPort", [.string(generator.string())])
            case 6: ("SetCategory", [.string(generator.pick(["playback", "playAndRecord", "record", "multiRoute", "ambient"])),
                                     .string(generator.pick(["default", "voiceChat", "measurement", "spokenAudio"])), .uint32(generator.bits())])
            case 7: ("CreateSession", [.string(generator.string())])
            case 8: ("SetRecordPermission", [.string(generator.string()), .string(generator.string())])
            default: ("Close", [])
            }
            do {
                switch call.0 {
                case "CreateSession":
                    let path = try await managerCall(client, "CreateSession", call.1).first?.stringValue ?? ""
                    sessions.append(SessionClient(connection: client, path: path))
                case "SetRecordPermission":
                    _ = try await managerCall(client, call.0, call.1)
                default:
                    try await session.call(call.0, call.1)
                }
            } catch let error as BusError {
                refusals += 1
                #expect(error.name.hasPrefix("org.audiosession.Error.") || error.name == "org.freedesktop.DBus.Error.UnknownObject",
                        "\(call): \(error)")
            }
        }
        #expect(refusals > 100, "the fuzzer reached the refusals")
        #expect(sandbox.daemon.isRunning)
        _ = try await listSessions(client)
        // Type-level garbage never reaches us: sd-bus refuses a wrong signature itself.
        let wrongType = await busError {
            _ = try await client.call(ServiceSandbox.busName, path: sessions[0].path, interface: ServiceSandbox.sessionInterface,
                                      member: "SetActive", [.string("yes")], timeout: .seconds(5))
        }
        #expect(wrongType?.name == "org.freedesktop.DBus.Error.InvalidArgs" || wrongType?.name == "org.freedesktop.DBus.Error.UnknownObject")
        #expect(sandbox.daemon.isRunning)
    }

    @Test func aFloodingClientDoesNotStallOthers() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let flooder = try sandbox.connect()
        let session = try await SessionClient.create(on: flooder, app: "flood")
        let outcomes = await withTaskGroup(of: String.self) { group in
            for index in 0..<2_000 {
                group.addTask {
                    do {
                        try await session.call("SetPreferredSampleRate", [.double(index % 2 == 0 ? 48_000 : 44_100)], timeout: .seconds(30))
                        return "ok"
                    } catch let error as BusError {
                        return error.name
                    } catch {
                        return "\(error)"
                    }
                }
            }
            // Meanwhile another client is served.
            let other = try? sandbox.connect()
            if let other { _ = try? await listSessions(other) }
            var outcomes: [String: Int] = [:]
            for await outcome in group { outcomes[outcome, default: 0] += 1 }
            return outcomes
        }
        #expect(outcomes.keys.allSatisfy { $0 == "ok" || $0 == "org.freedesktop.DBus.Error.LimitsExceeded" }, "\(outcomes)")
        #expect(outcomes["ok", default: 0] > 0)
        let observer = try sandbox.connect()
        #expect(try await listSessions(observer).contains { $0["label"] == .string("flood") }, "the daemon still answers")
        #expect(sandbox.daemon.isRunning)
    }

    /// docs/org.audiosession.xml is the contract; the daemon's vtables must match it member by
    /// member, signature by signature.
    @Test func theIntrospectionXMLMatchesWhatTheDaemonServes() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let client = try sandbox.connect()
        let session = try await SessionClient.create(on: client)
        var served = Set<String>()
        for path in [ServiceSandbox.manager, session.path] {
            let xml = try #require(try await client.call(
                ServiceSandbox.busName, path: path, interface: "org.freedesktop.DBus.Introspectable", member: "Introspect",
                timeout: .seconds(5)).first?.stringValue)
            served.formUnion(IntrospectionMembers.parse(xml).filter { $0.hasPrefix("org.audiosession.") })
        }
        let file = Self.repository.appendingPathComponent("docs/org.audiosession.xml")
        let documented = IntrospectionMembers.parse(try String(contentsOf: file, encoding: .utf8))
        #expect(served == documented, "only served: \(served.subtracting(documented).sorted()); only documented: \(documented.subtracting(served).sorted())")
        #expect(served.count > 40)
    }
}

/// `interface.member kind signature` lines from introspection XML (a tiny scanner: the format
/// sd-bus writes and the repo's file use one element per line).
enum IntrospectionMembers {
    static func parse(_ xml: String) -> Set<String> {
        var result = Set<String>()
        var interface = "", member = "", kind = "", arguments: [String] = []
        func attribute(_ name: String, in line: Substring) -> String? {
            guard let start = line.range(of: "\(name)=\"") else { return nil }
            let rest = line[start.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        func flush() {
            if !member.isEmpty { result.insert("\(interface).\(member) \(kind) \(arguments.joined(separator: ","))") }
            member = ""
            arguments = []
        }
        for line in xml.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces)[...] }) {
            if line.hasPrefix("<interface ") { interface = attribute("name", in: line) ?? "" }
            for element in ["method", "signal", "property"] where line.hasPrefix("<\(element) ") {
                flush()
                kind = element
                member = attribute("name", in: line) ?? ""
                if element == "property" {
                    arguments = [(attribute("type", in: line) ?? "") + ":" + (attribute("access", in: line) ?? "")]
                    flush()
                }
            }
            if line.hasPrefix("<arg ") {
                let direction = attribute("direction", in: line) ?? (kind == "signal" ? "out" : "in")
                arguments.append("\(attribute("name", in: line) ?? "")=\(attribute("type", in: line) ?? ""):\(direction)")
            }
            if line.hasPrefix("</method>") || line.hasPrefix("</signal>") || line.hasPrefix("</interface>") { flush() }
        }
        flush()
        return result
    }
}
