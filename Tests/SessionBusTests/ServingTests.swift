// ServingTests: an exported object called from a second SessionBus connection and from busctl,
// with values of every supported type, asynchronous replies and the caller's credentials.

import Glibc
import SessionBus
import Synchronization
import Testing

@Suite(.serialized) struct ServingTests {
    @Test func callFromSecondConnection() async throws {
        try await withFixture { fixture in
            let sum = try await fixture.call("Add", [.int32(2), .int32(3)])
            #expect(sum == [.int32(5)])
        }
    }

    @Test func valuesOfEveryTypeRoundTrip() async throws {
        try await withFixture { fixture in
            let basics = BusValue.structure([
                .byte(255), .bool(true), .int16(-2), .uint16(65535), .int32(Int32.min), .uint32(UInt32.max),
                .int64(Int64.min), .uint64(UInt64.max), .double(-0.25), .string("grüße ✓"),
                .objectPath("/org/audiosession/Session/3"), .signature("a{sv}"),
            ])
            let list = BusValue.strings(["speaker", "", "headphones"])
            let map = BusValue.dictionary([
                "rate": .uint32(48000), "nested": .dictionary(["x": .array(element: "i", [])]),
                "variant": .variant(.structure([.string("deep"), .double(1)])),
            ])
            let records = BusValue.array(
                element: "(su)", [.structure([.string("a"), .uint32(1)]), .structure([.string("b"), .uint32(2)])])
            let reply = try await fixture.call("Mirror", [basics, list, map, records])
            #expect(reply == [basics, list, map, records])
            #expect(reply[2].dictionaryValue?["rate"] == .uint32(48000))

            let emptyArray = BusValue.array(element: "(sa{sv})", [])
            #expect(try await fixture.call("Echo", [.variant(emptyArray)]) == [.variant(emptyArray)])
        }
    }

    @Test func busctlIsARealClient() async throws {
        try await withFixture { fixture in
            let add = try await busctl(fixture, ["call", testBusName, testPath, testInterfaceName, "Add", "ii", "40", "2"])
            #expect(add.status == 0, "\(add.standardError)")
            #expect(add.standardOutput.trimmingCharacters() == "i 42")

            let ping = try await busctl(fixture, ["call", testBusName, testPath, "org.freedesktop.DBus.Peer", "Ping"])
            #expect(ping.status == 0, "\(ping.standardError)")

            let introspection = try await busctl(fixture, ["introspect", testBusName, testPath, testInterfaceName])
            #expect(introspection.status == 0, "\(introspection.standardError)")
            let text = introspection.standardOutput
            for expected in [
                ".Add", ".Mirror", ".WhoAmI", ".Volume", ".Label", ".Version", ".Tags", ".Changed", "emits-change",
                "emits-invalidation", "const", "writable",
            ] {
                #expect(text.contains(expected), "introspection lacks \(expected):\n\(text)")
            }
            let xml = try await busctl(fixture, ["call", testBusName, testPath, "org.freedesktop.DBus.Introspectable", "Introspect"])
            let unescaped = xml.standardOutput.replacingAll("\\\"", with: "\"")
            #expect(unescaped.contains("<arg type=\"i\" name=\"sum\" direction=\"out\"/>"), "\(unescaped)")
        }
    }

    @Test func asynchronousRepliesComeBackInAnyOrder() async throws {
        try await withFixture(parkLaterCalls: true) { fixture in
            let calls = (1...3).map { token in
                Task { try await fixture.call("Later", [.uint32(UInt32(token))]) }
            }
            try await waitForParked(fixture, count: 3)
            let parked = fixture.service.seen.withLock { $0.parked }
            // Answer from other threads, last first.
            for call in parked.reversed() {
                Task.detached { call.reply(call.arguments) }
            }
            for (index, task) in calls.enumerated() {
                #expect(try await task.value == [.uint32(UInt32(index + 1))])
            }
        }
    }

    @Test func callerCredentialsComeFromTheBusDaemon() async throws {
        try await withFixture { fixture in
            let reply = try await fixture.call("WhoAmI")
            #expect(reply == [.uint32(getuid()), .uint32(UInt32(getpid())), .string(fixture.client.uniqueName)])

            let external = try await busctl(fixture, ["call", testBusName, testPath, testInterfaceName, "WhoAmI"])
            #expect(external.status == 0, "\(external.standardError)")
            let fields = external.standardOutput.trimmingCharacters().split(separator: " ")
            #expect(fields.count == 4)  // uus uid pid "name"
            #expect(fields.dropFirst().first == "\(getuid())")
            #expect(fields.dropFirst(2).first == "\(external.pid)")
        }
    }

    @Test func argumentsAreReadWithoutForceUnwrapping() async throws {
        let seen = Mutex<[String]>([])
        try await withFixture { fixture in
            _ = try fixture.server.export(
                path: "/org/audiosession/Args",
                interfaces: [BusInterface("org.audiosession.Args1", methods: [BusMethod("Take", inputs: [.init("name", "s")])])]
            ) { call in
                do throws(BusError) {
                    seen.withLock { $0.append((try? call.argument(0, \.stringValue)) ?? "?") }
                    _ = try call.argument(0, \.uint32Value)  // wrong type: throws, does not crash
                    call.reply()
                } catch {
                    call.fail(error)
                }
            }
            await fixture.server.flush()
            let error = await #expect(throws: BusError.self) {
                try await fixture.client.call(
                    testBusName, path: "/org/audiosession/Args", interface: "org.audiosession.Args1", member: "Take",
                    [.string("x")])
            }
            #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(seen.withLock { $0 } == ["x"])
        }
    }

    @Test func aCallDroppedUnansweredStillGetsAnError() async throws {
        try await withFixture { fixture in
            let error = await #expect(throws: BusError.self) { try await fixture.call("Forget") }
            #expect(error?.name == "org.freedesktop.DBus.Error.Failed")
        }
    }

    @Test func exportRejectsBadDescriptions() async throws {
        try await withFixture { fixture in
            let handler: @Sendable (BusCall) -> Void = { $0.reply() }
            #expect(throws: BusError.self) {
                try fixture.server.export(path: "/bad//path", interfaces: [BusInterface("a.b")], handler: handler)
            }
            #expect(throws: BusError.self) {
                try fixture.server.export(path: testPath, interfaces: [BusInterface("a.b")], handler: handler)
            }
            #expect(throws: BusError.self) {
                try fixture.server.export(
                    path: "/x", interfaces: [BusInterface("a.b", methods: [BusMethod("M", inputs: [.init("q", "a{vs}")])])],
                    handler: handler)
            }
            #expect(throws: BusError.self) {
                try fixture.server.export(
                    path: "/y", interfaces: [BusInterface("a.b", properties: [BusProperty("P", "u")])], handler: handler)
            }
        }
    }

    @Test func removedObjectsAreGone() async throws {
        try await withFixture { fixture in
            let object = try fixture.server.export(
                path: "/org/audiosession/Session/1", interfaces: [BusInterface("org.audiosession.Session1", methods: [BusMethod("Poke")])]
            ) { $0.reply() }
            await fixture.server.flush()  // the client learns of the object by another route than this connection
            _ = try await fixture.client.call(
                testBusName, path: object.path, interface: "org.audiosession.Session1", member: "Poke")
            object.remove()
            await fixture.server.flush()
            let error = await #expect(throws: BusError.self) {
                try await fixture.client.call(
                    testBusName, path: object.path, interface: "org.audiosession.Session1", member: "Poke")
            }
            #expect(error?.name == "org.freedesktop.DBus.Error.UnknownObject")
        }
    }
}

/// Waits until the service parked `count` calls (driven by further calls' completion, bounded).
func waitForParked(_ fixture: Fixture, count: Int) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while fixture.service.seen.withLock({ $0.parked.count }) < count {
        guard ContinuousClock.now < deadline else { throw ProgramError(description: "calls were not delivered") }
        // A round trip through the same server: every call sent before it has been dispatched after it.
        _ = try await fixture.call("Add", [.int32(0), .int32(0)])
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }

    func trimmingCharacters() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

/// What the service did before a peer could see it is done when the peer acts on it: an object
/// exported and then named in a property (as the daemon exports a session and lists it in
/// Manager1.Sessions) is served to a peer that calls it the moment it reads the property.
@Suite(.serialized) struct ServingOrderTests {
    @Test func anObjectNamedInAPropertyIsServedToAPeerThatCallsItAtOnce() async throws {
        try await withFixture { fixture in
            let (server, object, service) = (fixture.server, fixture.object, fixture.service)
            let count = 1000
            let exporter = Task.detached {
                for index in 1...count {
                    let path = "\(testPath)/Item\(index)"
                    _ = try server.export(path: path, interfaces: [testInterface], properties: initialProperties) { call in
                        service.handle(call)
                    }
                    try object.setProperties(["Tags": .strings([path])], of: testInterfaceName)
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            var seen: Set<String> = []
            let last = "\(testPath)/Item\(count)"
            while !seen.contains(last) {
                let tags = try await fixture.client.property("Tags", of: testInterfaceName, at: testPath, on: testBusName, timeout: .seconds(5))
                // Tags starts as ["a"], which names no object.
                for path in (tags.arrayValue ?? []).compactMap(\.stringValue) where path.hasPrefix(testPath + "/") && seen.insert(path).inserted {
                    let version = try await fixture.client.property(
                        "Version", of: testInterfaceName, at: path, on: testBusName, timeout: .seconds(5))
                    #expect(version == .uint32(7), "\(path)")
                }
            }
            try await exporter.value
        }
    }
}
