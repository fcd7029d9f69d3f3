import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// Every Manager1 and Session1 method against the real daemon, on a private bus and PipeWire.
@Suite("Session API methods", .serialized)
struct MethodTests {
    @Test func aSessionIsConfiguredActivatedAndReportsItsProperties() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let client = try sandbox.connect()
        let session = try await SessionClient.create(on: client, app: "voip")
        #expect(session.path == "/org/audiosession/Session/\(session.number)")
        #expect(try await session.property("Label") == .string("voip"), "the name it gave, for people")
        #expect(try await session.property("App") == .string(ownAppID), "what its process vouches for")
        #expect(try await session.property("Category") == .string("soloAmbient"), "AVAudioSession's default")

        let changes = SignalRecorder(try await client.signals(
            path: session.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        try await session.setCategory("playAndRecord", mode: "voiceChat", options: 0x8)
        #expect(try await session.property("Category") == .string("playAndRecord"))
        #expect(try await session.property("Mode") == .string("voiceChat"))
        #expect(try await session.property("Options") == .uint32(0x8))
        _ = try await changes.waitFor("Category changed") { signal in
            signal.arguments.count == 3 && signal.arguments[1].dictionaryValue?["Category"] == .string("playAndRecord")
        }

        try await session.setActive(true)
        #expect(try await session.property("Active") == .bool(true))
        #expect(try await session.property("OutputNumberOfChannels") == .uint32(2))
        #expect(try await session.property("InputNumberOfChannels") == .uint32(1), "the mono mic")
        let route = try #require(try await session.property("CurrentRoute").structureValue)
        #expect(route[1].arrayValue?.first?.structureValue?.first == .string("headphones"), "last in wins")

        try await session.call("SetPreferredSampleRate", [.double(44_100)])
        #expect(try await session.property("PreferredSampleRate") == .double(44_100))
        try await session.call("SetPreferredIOBufferDuration", [.double(0.01)])
        #expect(try await session.property("PreferredIOBufferDuration") == .double(0.01))
        #expect(try await session.property("PreferredSampleRate") == .double(44_100), "one preference keeps the other")
        try waitUntil(timeout: .seconds(5), "the graph is forced to 44100 Hz") {
            try sandbox.setting("clock.force-rate") == "44100"
        }
        #expect(try await session.property("SampleRate") == .double(44_100))

        let inputs = try #require(try await session.property("AvailableInputs").arrayValue)
        #expect(inputs.compactMap { $0.structureValue?.first?.stringValue } == ["mic"])
        try await session.call("SetPreferredInput", [.string("mic")])
        #expect(try await session.property("PreferredInput") == .string("mic"))
        try await session.call("SetPreferredInput", [.string("")])
        #expect(try await session.property("PreferredInput") == .string(""))
        try await session.call("OverrideOutputAudioPort", [.string("speaker")])
        try await session.call("OverrideOutputAudioPort", [.string("none")])

        try await session.setActive(false, options: 1)
        #expect(try await session.property("Active") == .bool(false))
        try await session.call("Close")
        let gone = await busError { _ = try await session.property("Category") }
        #expect(gone?.name == "org.freedesktop.DBus.Error.UnknownObject", "\(String(describing: gone))")
        #expect(try await listSessions(client).contains { $0["id"] == .uint64(session.number) } == false)
    }

    @Test func preferredChannelCountsAreRefusedAsOnIOSAndKeptWhenValid() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let client = try sandbox.connect()
        let session = try await SessionClient.create(on: client, app: "recorder")
        try await session.setCategory("playAndRecord")
        let notActive = await busError { _ = try await session.call("SetPreferredInputNumberOfChannels", [.uint32(1)]) }
        #expect(notActive?.name == "org.audiosession.Error.SessionNotActive")
        try await session.setActive(true)
        let tooMany = await busError { _ = try await session.call("SetPreferredInputNumberOfChannels", [.uint32(2)]) }
        #expect(tooMany?.name == "org.audiosession.Error.BadParam", "the mono mic takes one")
        _ = try await session.call("SetPreferredOutputNumberOfChannels", [.uint32(1)])
        #expect(try await session.property("PreferredOutputNumberOfChannels") == .uint32(1))
        #expect(try await session.property("OutputNumberOfChannels") == .uint32(2), "the device's, not claimed as applied")
        _ = try await session.call("SetPreferredOutputNumberOfChannels", [.uint32(0)])
        #expect(try await session.property("PreferredOutputNumberOfChannels") == .uint32(0))
    }

    /// `isBusy`: a player that deactivates while its stream still plays is refused (after the
    /// patience for the server to report a stream's end); one that stops its stream and then
    /// deactivates at once is not refused for that lag: the reply waits for the stream's end.
    @Test func deactivatingWhileTheAudioRunsIsBusy() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let client = try sandbox.connect()
        let session = try await SessionClient.create(on: client, app: "player")
        try await session.setCategory("playback")
        try await session.setActive(true)
        let tone = try sandbox.pipewire.testTone()
        let player = try sandbox.pipewire.play(
            role: "Music", file: tone, extraArguments: ["-P", "{ node.name = player audiosession.id = \(session.number) }"])
        try sandbox.pipewire.waitUntilLinked("player", to: ["headphones"])
        try await waitUntil(timeout: .seconds(5), "the stream joined the session") { () async throws -> Bool in
            let sessions = try await managerCall(client, "ListSessions").first?.arrayValue ?? []
            return sessions.contains { entry in
                let fields = entry.dictionaryValue ?? [:]
                return fields["id"]?.uint64Value == session.number && !(fields["streams"]?.arrayValue ?? []).isEmpty
            }
        }
        let started = ContinuousClock.now
        let busy = await busError { try await session.setActive(false) }
        #expect(busy?.name == "org.audiosession.Error.IsBusy", "\(String(describing: busy))")
        #expect(ContinuousClock.now - started >= .milliseconds(1500), "it waited for the stream to stop first")
        #expect(try await session.property("Active") == .bool(true))

        // Stop, then deactivate at once: the reply waits for the server to report the stream gone.
        player.terminate()
        try await session.setActive(false)
        #expect(try await session.property("Active") == .bool(false))
    }

    @Test func malformedArgumentsAreBadParamWithTheCode() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let session = try await SessionClient.create(on: try sandbox.connect())
        let badParam = "org.audiosession.Error.BadParam"
        let cases: [(String, [BusValue])] = [
            ("SetCategory", [.string("loud"), .string("default"), .uint32(0)]),
            ("SetCategory", [.string("playback"), .string("karaoke"), .uint32(0)]),
            ("SetCategory", [.string("playback"), .string("default"), .uint32(0x100)]),
            ("SetCategory", [.string("playback"), .string("default"), .uint32(0x8)]),  // defaultToSpeaker: playAndRecord only
            ("SetActive", [.bool(false), .uint32(2)]),
            ("SetPreferredSampleRate", [.double(.nan)]),
            ("SetPreferredSampleRate", [.double(-48_000)]),
            ("SetPreferredSampleRate", [.double(1e12)]),
            ("SetPreferredSampleRate", [.double(.infinity)]),
            ("SetPreferredIOBufferDuration", [.double(.nan)]),
            ("SetPreferredIOBufferDuration", [.double(-0.005)]),
            ("SetPreferredIOBufferDuration", [.double(3600)]),
            ("OverrideOutputAudioPort", [.string("earpiece")]),
        ]
        for (member, arguments) in cases {
            let error = await busError { try await session.call(member, arguments) }
            #expect(error?.name == badParam, "\(member)\(arguments): \(String(describing: error))")
            #expect(error?.code == -50, "\(member)\(arguments)")
        }
        let incompatible = await busError { try await session.call("OverrideOutputAudioPort", [.string("speaker")]) }
        #expect(incompatible?.name == "org.audiosession.Error.IncompatibleCategory")
        #expect(incompatible?.code == 560_161_140)
        #expect(try await session.property("Category") == .string("soloAmbient"), "a refused call changes nothing")
        #expect(sandbox.daemon.isRunning)
    }

    @Test func onlyTheOwningConnectionMayActOnASession() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let owner = try sandbox.connect()
        let session = try await SessionClient.create(on: owner)
        let intruder = SessionClient(connection: try sandbox.connect(), path: session.path)
        for (member, arguments) in [
            ("SetCategory", [BusValue.string("playback"), .string("default"), .uint32(0)]),
            ("SetActive", [.bool(true), .uint32(0)]), ("Close", []),
        ] as [(String, [BusValue])] {
            let error = await busError { try await intruder.call(member, arguments) }
            #expect(error?.name == "org.audiosession.Error.MissingEntitlement", "\(member): \(String(describing: error))")
            #expect(error?.code == 1_701_737_535)
        }
        #expect(try await session.property("Category") == .string("soloAmbient"))
        #expect(try await intruder.property("Category") == .string("soloAmbient"), "reading is allowed")
        let missing = SessionClient(connection: owner, path: "/org/audiosession/Session/999999")
        #expect(await busError { try await missing.call("Close") }?.name == "org.freedesktop.DBus.Error.UnknownObject")
    }

    @Test func aSessionGoesWhenItsOwnerDisconnects() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let watcher = try sandbox.connect()
        let owner = try BusConnection(address: sandbox.bus.address)
        let session = try await SessionClient.create(on: owner, app: "leaver")
        #expect(try await listSessions(watcher).contains { $0["path"] == .objectPath(session.path) })
        owner.close()
        try await waitUntil(timeout: .seconds(5), "the session is gone from ListSessions") {
            try await listSessions(watcher).contains { $0["label"] == .string("leaver") } == false
        }
        let gone = await busError {
            _ = try await watcher.property("Category", of: ServiceSandbox.sessionInterface, at: session.path, on: ServiceSandbox.busName)
        }
        #expect(gone?.name == "org.freedesktop.DBus.Error.UnknownObject")
    }

    @Test func silentModeAndPermissionsThroughTheCommandLine() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let client = try sandbox.connect()
        let ambient = try await SessionClient.create(on: client, app: "game")
        try await ambient.setCategory("ambient")
        let media = try await SessionClient.create(on: client, app: "player")
        try await media.setCategory("playback")

        let table = try sandbox.ctl(["status"])
        #expect(table.status == 0 && table.output.contains("game") && table.output.contains("ambient"), "\(table.output)\(table.error)")
        let json = try sandbox.ctl(["status", "--json"])
        let status = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let statusSessions = try #require(status["sessions"] as? [[String: Any]])
        #expect(statusSessions.contains { $0["label"] as? String == "game" && $0["category"] as? String == "ambient" })
        #expect(((status["currentRoute"] as? [String: Any])?["outputs"] as? [[String: Any]])?.first?["uid"] as? String == "headphones")

        let on = try sandbox.ctl(["silent", "on"])
        #expect(on.status == 0, "\(on.error)")
        #expect(try await client.property("SilentMode", of: ServiceSandbox.managerInterface, at: ServiceSandbox.manager, on: ServiceSandbox.busName) == .bool(true))
        let sessions = try await listSessions(client)
        #expect(sessions.first { $0["label"] == .string("game") }?["silenced"] == .bool(true))
        #expect(sessions.first { $0["label"] == .string("player") }?["silenced"] == .bool(false), "media is not silenced")
        #expect(try sandbox.ctl(["silent", "off"]).status == 0)
        #expect(try await listSessions(client).first { $0["label"] == .string("game") }?["silenced"] == .bool(false))

        // RequestRecordPermission waits for the user's answer, given with the command line, for
        // the app its process is (this test's), whatever name the session was given.
        let recorder = try await SessionClient.create(on: client, app: "recorder")
        let requests = SignalRecorder(try await client.signals(member: "RecordPermissionRequested"))
        async let answer = recorder.call("RequestRecordPermission", timeout: .seconds(20))
        _ = try await requests.waitFor("the request is announced") { $0.arguments.first == .string(ownAppID) }
        #expect(try sandbox.ctl(["permission", "grant", "recorder"]).status == 0)
        #expect(try await recorder.property("RecordPermission") == .string("undetermined"), "a name is not an app")
        let grant = try sandbox.ctl(["permission", "grant", ownAppID])
        #expect(grant.status == 0, "\(grant.error)")
        #expect(try await answer.first == .bool(true))
        #expect(try await recorder.property("RecordPermission") == .string("granted"))
        #expect(try await recorder.call("RequestRecordPermission").first == .bool(true), "remembered: answered at once")

        #expect(try sandbox.ctl(["permission", "deny", ownAppID]).status == 0)
        #expect(try await recorder.property("RecordPermission") == .string("denied"))
        let listed = try sandbox.ctl(["permission", "list"])
        #expect(listed.output.contains("\(ownAppID)\tdenied"))
        let file = sandbox.pipewire.directory.appendingPathComponent("state/record-permissions.json")
        #expect(try String(contentsOf: file, encoding: .utf8).contains("\"\(ownAppID)\" : \"denied\""), "persisted in the state dir")
        #expect(try sandbox.ctl(["permission", "reset", ownAppID]).status == 0)
        #expect(try await recorder.property("RecordPermission") == .string("undetermined"))
    }

    @Test func theCommandLineSaysSoWhenTheDaemonIsNotRunning() throws {
        let pipewire = try PrivatePipeWire(devices: [])
        defer { pipewire.stop() }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        for arguments in [["status"], ["silent", "on"], ["permission", "grant", "x"], ["monitor"], ["run", "--category", "playback", "--", "true"]] {
            let process = try pipewire.spawn(ServiceSandbox.binary("audiosessionctl"), arguments, extraEnvironment: bus.environment)
            let status = try process.waitForExit(timeout: .seconds(10))
            #expect(status != 0, "\(arguments)")
            let lines = process.errorOutput.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("audiosessiond is not running"), "\(arguments): \(process.errorOutput)")
        }
    }
}
