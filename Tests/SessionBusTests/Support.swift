// Support: a private bus per test with a served test object, a client connection, a runner for
// real external clients (busctl) that knows their PIDs and kills them, and deadline waits.

import Dispatch
import Foundation
import PipeWireSandbox
import SessionBus
import Synchronization
import Testing

/// The interface every test serves.
let testInterfaceName = "org.audiosession.Test1"
let testPath = "/org/audiosession/Test"
let testBusName = "org.audiosession.Test"

let testInterface = BusInterface(
    testInterfaceName,
    methods: [
        BusMethod("Add", inputs: [.init("a", "i"), .init("b", "i")], outputs: [.init("sum", "i")]),
        BusMethod("Echo", inputs: [.init("value", "v")], outputs: [.init("value", "v")]),
        BusMethod(
            "Mirror",
            inputs: [
                .init("basics", "(ybnqiuxtdsog)"), .init("list", "as"), .init("map", "a{sv}"), .init("records", "a(su)"),
            ],
            outputs: [
                .init("basics", "(ybnqiuxtdsog)"), .init("list", "as"), .init("map", "a{sv}"), .init("records", "a(su)"),
            ]),
        BusMethod("Fail", inputs: [.init("name", "s"), .init("code", "i")]),
        BusMethod("Later", inputs: [.init("token", "u")], outputs: [.init("token", "u")]),
        BusMethod("WhoAmI", outputs: [.init("uid", "u"), .init("pid", "u"), .init("name", "s")]),
        BusMethod("Forget"),
        BusMethod("Keys", inputs: [.init("map", "a{sv}")], outputs: [.init("keys", "as")]),
    ],
    properties: [
        BusProperty("Volume", "d"),
        BusProperty("Label", "s", access: .readWrite),
        BusProperty("Version", "u", changes: .constant),
        BusProperty("Tags", "as", changes: .invalidates),
    ],
    signals: [BusSignalDescription("Changed", arguments: [.init("what", "s"), .init("details", "a{sv}")])])

let initialProperties: [String: [String: BusValue]] = [
    testInterfaceName: [
        "Volume": .double(0.5), "Label": .string("initial"), "Version": .uint32(7), "Tags": .strings(["a"]),
    ]
]

/// The test object's behaviour; records what it saw so tests can check it.
final class TestService: Sendable {
    struct Seen {
        var callers: [BusCaller] = []
        var parked: [BusCall] = []
        var inFlight = 0
        var maxInFlight = 0
    }
    let seen = Mutex(Seen())
    /// "Later" calls are answered from this queue, not the bus thread (the daemon's hop).
    let answerQueue = DispatchQueue(label: "test.answers")
    /// When true, "Later" calls are parked until the test answers them.
    let parkLaterCalls: Bool

    init(parkLaterCalls: Bool = false) { self.parkLaterCalls = parkLaterCalls }

    func handle(_ call: BusCall) {
        seen.withLock { $0.callers.append(call.caller) }
        let args = call.arguments
        switch call.member {
        case "Add":
            do {
                call.reply([.int32(try call.argument(0, \.int32Value) &+ call.argument(1, \.int32Value))])
            } catch {
                call.fail(error)
            }
        case "Echo", "Mirror":
            call.reply(args)
        case "Fail":
            call.fail(.audioSession(args[0].stringValue ?? "", code: args[1].int32Value ?? 0, message: "refused on purpose"))
        case "Later":
            if parkLaterCalls {
                seen.withLock { $0.parked.append(call) }
                return
            }
            seen.withLock {
                $0.inFlight += 1
                $0.maxInFlight = max($0.maxInFlight, $0.inFlight)
            }
            answerQueue.async {
                self.seen.withLock { $0.inFlight -= 1 }
                call.reply(args)
            }
        case "WhoAmI":
            call.reply([.uint32(call.caller.uid), .uint32(call.caller.pid), .string(call.caller.uniqueName)])
        case "Forget":
            break  // dropped unanswered: SessionBus must answer for us
        case "Keys":
            call.reply([.strings((args.first?.dictionaryValue ?? [:]).keys.sorted())])
        default:
            call.fail(.failed("unexpected \(call.member)"))
        }
    }
}

/// A private bus, a server connection owning `testBusName` and serving the test object, and a client.
struct Fixture {
    let bus: PrivateSessionBus
    let server: BusConnection
    let client: BusConnection
    let service: TestService
    let object: BusObject

    func call(_ member: String, _ arguments: [BusValue] = [], timeout: Duration = .seconds(20)) async throws -> [BusValue] {
        try await client.call(
            testBusName, path: testPath, interface: testInterfaceName, member: member, arguments, timeout: timeout)
    }
}

/// Runs `body` with a fresh fixture and tears everything down by PID, also when `body` throws.
func withFixture(
    limits: BusLimits = BusLimits(), parkLaterCalls: Bool = false,
    writeHandler: (@Sendable (BusPropertyWrite) throws(BusError) -> Void)? = nil,
    _ body: (Fixture) async throws -> Void
) async throws {
    let bus = try PrivateSessionBus()
    defer { bus.stop() }
    let server = try BusConnection(address: bus.address, limits: limits)
    defer { server.close() }
    let service = TestService(parkLaterCalls: parkLaterCalls)
    let object = try server.export(
        path: testPath, interfaces: [testInterface], properties: initialProperties, writeHandler: writeHandler
    ) { call in service.handle(call) }
    try await server.requestName(testBusName)
    let client = try BusConnection(address: bus.address)
    defer { client.close() }
    try await body(Fixture(bus: bus, server: server, client: client, service: service, object: object))
}

/// The outcome of an external program.
struct ProgramResult {
    let pid: pid_t
    let status: Int32
    let standardOutput: String
    let standardError: String
}

/// Runs a real external client (busctl, dbus-send) to completion as a ManagedProcess, off the
/// cooperative pool; it is killed by PID if it outlives `timeout`. Its logs go to `logDirectory`.
func runProgram(
    _ program: String, _ arguments: [String], logDirectory: URL, timeout: Duration = .seconds(20)
) async throws -> ProgramResult {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(
                with: Result {
                    let environment = ProcessInfo.processInfo.environment.filter { $0.key == "PATH" || $0.key == "HOME" }
                    let child = try ManagedProcess(program, arguments, environment: environment, logDirectory: logDirectory)
                    defer { child.terminate() }
                    let status = try child.waitForExit(timeout: timeout)
                    return ProgramResult(
                        pid: child.pid, status: status, standardOutput: child.output, standardError: child.errorOutput)
                })
        }
    }
}

/// `busctl --address=<bus> ARGS…`
func busctl(_ fixture: Fixture, _ arguments: [String]) async throws -> ProgramResult {
    try await runProgram("busctl", ["--address=" + fixture.bus.address] + arguments, logDirectory: fixture.bus.directory)
}

struct ProgramError: Error, CustomStringConvertible { let description: String }

/// The first element of `stream` satisfying `predicate`, or a failure after `timeout`.
func first<T: Sendable>(
    _ stream: AsyncStream<T>, timeout: Duration = .seconds(10), where predicate: @escaping @Sendable (T) -> Bool
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            for await element in stream where predicate(element) { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: TestTime.scaled(timeout))  // a deadline, not a pause: the other task normally wins
            return nil
        }
        defer { group.cancelAll() }
        guard let result = try await group.next(), let element = result else {
            throw ProgramError(description: "no matching element within \(timeout)")
        }
        return element
    }
}
