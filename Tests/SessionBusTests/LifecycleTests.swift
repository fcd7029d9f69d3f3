// LifecycleTests: connections closing with calls pending, the bus daemon going away, objects with
// several interfaces, and calls that expect no reply.

import PipeWireSandbox
import SessionBus
import Synchronization
import Testing

@Suite(.serialized) struct LifecycleTests {
    @Test func closingFailsPendingCallsAndEndsStreams() async throws {
        try await withFixture(parkLaterCalls: true) { fixture in
            let other = try BusConnection(address: fixture.bus.address)
            let signals = try await other.signals(interface: testInterfaceName)
            let pending = Task {
                try await other.call(testBusName, path: testPath, interface: testInterfaceName, member: "Later", [.uint32(1)])
            }
            try await waitForParked(fixture, count: 1)
            other.close()
            #expect(!other.isOpen)
            let error = await #expect(throws: BusError.self) { try await pending.value }
            #expect(error?.name == "org.freedesktop.DBus.Error.Disconnected")
            var received = 0
            for await _ in signals { received += 1 }  // finishes instead of hanging
            #expect(received == 0)
            await #expect(throws: BusError.self) {
                try await other.call(testBusName, path: testPath, interface: testInterfaceName, member: "Add", [.int32(1), .int32(1)])
            }
        }
    }

    @Test func theBusDaemonGoingAwayIsSurvived() async throws {
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        let signals = try await connection.signals(member: "Anything")
        bus.stop()
        for await _ in signals {}  // the stream ends when the connection is lost
        #expect(!connection.isOpen)
        await #expect(throws: BusError.self) {
            try await connection.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "ListNames")
        }
        #expect(throws: BusError.self) {
            try connection.export(path: "/late", interfaces: [BusInterface("a.b", methods: [BusMethod("M")])]) { $0.reply() }
        }
    }

    @Test func oneObjectWithSeveralInterfaces() async throws {
        try await withFixture { fixture in
            let first = BusInterface("org.audiosession.First1", methods: [BusMethod("Name", outputs: [.init("name", "s")])])
            let second = BusInterface(
                "org.audiosession.Second1", methods: [BusMethod("Name", outputs: [.init("name", "s")])],
                properties: [BusProperty("Count", "u")])
            _ = try fixture.server.export(
                path: "/org/audiosession/Multi", interfaces: [first, second],
                properties: ["org.audiosession.Second1": ["Count": .uint32(2)]]
            ) { call in call.reply([.string(call.interface)]) }
            await fixture.server.flush()
            for interface in [first.name, second.name] {
                let reply = try await fixture.client.call(testBusName, path: "/org/audiosession/Multi", interface: interface, member: "Name")
                #expect(reply == [.string(interface)])
            }
            let count = try await fixture.client.property("Count", of: second.name, at: "/org/audiosession/Multi", on: testBusName)
            #expect(count == .uint32(2))
        }
    }

    @Test func callsThatExpectNoReplyAreDeliveredAndNotAnswered() async throws {
        try await withFixture(parkLaterCalls: true) { fixture in
            // From a connection that stays: a short-lived sender (busctl --expect-reply=no) may be
            // gone before its credentials are read, and then its calls are dropped by design.
            try fixture.client.send(testBusName, path: testPath, interface: testInterfaceName, member: "Later", [.uint32(9)])
            try await waitForParked(fixture, count: 1)
            let call = try #require(fixture.service.seen.withLock { $0.parked.first })
            #expect(!call.expectsReply)
            #expect(call.arguments == [.uint32(9)])
            call.reply(call.arguments)  // nothing is sent; the service keeps serving
            #expect(try await fixture.call("Add", [.int32(4), .int32(5)]) == [.int32(9)])
        }
    }
}
