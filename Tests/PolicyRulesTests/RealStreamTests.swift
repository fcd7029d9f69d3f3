import Foundation
import PipeWireSandbox
import SessionPolicy
import Testing
@testable import PolicyRules

/// A private, headless PipeWire in its own runtime directory (never the user's), and the
/// clients started against it; every process is killed by PID when the test ends.
private final class PrivatePipeWire {
    let runtime: TemporaryDirectory
    private var processes: [Process] = []

    init() throws {
        runtime = try TemporaryDirectory()
        do {
            let daemon = try start("/usr/bin/pipewire", [])
            let socket = runtime.path + "/pipewire-0"
            try waitUntil("the PipeWire socket appears") { daemon.isRunning && FileManager.default.fileExists(atPath: socket) }
        } catch {
            stop()  // never leave the daemon behind
            throw error
        }
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["PIPEWIRE_REMOTE"] = nil
        environment["PIPEWIRE_RUNTIME_DIR"] = nil
        return environment
    }

    @discardableResult
    func start(_ executable: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes.append(process)
        return process
    }

    /// `pw-dump`: the streams' node properties, each with its client's properties.
    func streams() throws -> [(node: [String: String], client: [String: String])] {
        let dump = Process()
        dump.executableURL = URL(fileURLWithPath: "/usr/bin/pw-dump")
        dump.environment = environment
        let output = Pipe()
        dump.standardOutput = output
        dump.standardError = FileHandle.nullDevice
        try dump.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        dump.waitUntilExit()
        guard let objects = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        func properties(_ object: [String: Any]) -> [String: String] {
            let raw = (object["info"] as? [String: Any])?["props"] as? [String: Any] ?? [:]
            return raw.mapValues { "\($0)" }
        }
        let clients = Dictionary(objects.filter { ($0["type"] as? String)?.hasSuffix(":Client") == true }
            .map { ("\($0["id"] ?? "")", properties($0)) }, uniquingKeysWith: { first, _ in first })
        return objects.filter { ($0["type"] as? String)?.hasSuffix(":Node") == true }
            .map(properties)
            .filter { $0["media.class"] == "Stream/Output/Audio" }
            .map { node in (node, clients[node["client.id"] ?? ""] ?? [:]) }
    }

    func waitUntil(_ what: String, within deadline: Duration = .seconds(10), _ condition: () throws -> Bool) throws {
        let clock = ContinuousClock()
        let end = clock.now + TestTime.scaled(deadline)
        while clock.now < end {
            if try condition() { return }
            usleep(20_000)
        }
        throw TimeoutError(what: what)
    }

    func stop() {
        for process in processes.reversed() where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        processes.removeAll()
        runtime.remove()
    }
}

private struct TimeoutError: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting until \(what)" }
}

@Suite("Real pw-cat streams on a private PipeWire are classified as the shipped rules say", .serialized)
struct RealStreamTests {
    @Test("pw-cat --media-role X, and role-less pw-cat copies named like real apps")
    func realStreams() throws {
        let pipewire = try PrivatePipeWire()
        defer { pipewire.stop() }
        let tone = pipewire.runtime.path + "/tone.wav"
        try writeSilentWAV(to: tone, seconds: 30)
        for name in ["spotify", "zoom"] {
            try FileManager.default.copyItem(atPath: "/usr/bin/pw-cat", toPath: pipewire.runtime.path + "/" + name)
        }
        try pipewire.start("/usr/bin/pw-cat", ["-p", "--media-role", "Movie", tone])
        try pipewire.start("/usr/bin/pw-cat", ["-p", "--media-role", "phone", tone])
        try pipewire.start(pipewire.runtime.path + "/spotify", ["-p", "--media-role", "", tone])
        try pipewire.start(pipewire.runtime.path + "/zoom", ["-p", "--media-role", "", tone])
        try pipewire.waitUntil("four streams exist") { try pipewire.streams().count == 4 }

        let rules = try RuleSetLoader(locations: RuleLocations(shipped: shippedRulesDirectory, system: "/nonexistent", user: nil)).load()
        var byName: [String: Classification] = [:]
        for stream in try pipewire.streams() {
            let binary = stream.client["application.process.binary"] ?? "?"
            let key = binary == "pw-cat" ? "pw-cat:" + (stream.node["media.role"] ?? "") : binary
            byName[key] = rules.classify(node: stream.node, client: stream.client).classification
        }
        #expect(byName["pw-cat:Movie"] == ShippedRulesTests.movie)
        #expect(byName["pw-cat:phone"] == ShippedRulesTests.call)
        #expect(byName["spotify"] == ShippedRulesTests.music)
        #expect(byName["zoom"] == ShippedRulesTests.call)
    }
}

/// A silent 48 kHz stereo 16-bit WAV file.
private func writeSilentWAV(to path: String, seconds: Int) throws {
    let rate = 48_000, channels = 2, bytesPerSample = 2
    let dataSize = UInt32(rate * channels * bytesPerSample * seconds)
    var header = Data()
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
    header.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36) + dataSize)
    header.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(UInt16(channels))
    append(UInt32(rate)); append(UInt32(rate * channels * bytesPerSample)); append(UInt16(channels * bytesPerSample)); append(UInt16(16))
    header.append(contentsOf: Array("data".utf8)); append(dataSize)
    try (header + Data(count: Int(dataSize))).write(to: URL(fileURLWithPath: path))
}
