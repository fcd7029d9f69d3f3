import Foundation
import PipeWireSandbox
import SessionBus
import Synchronization
import Testing

/// A hostile bus client, bounded in count and time: floods, huge strings and arrays, every
/// method of the API with random arguments of its signature and of random others, calls on
/// another app's session and on objects that do not exist, connections that make sessions up to
/// the cap and vanish. Meanwhile another app's session is untouched and a third client is
/// answered within ``latencyBound``; the daemon's memory stays within ``memoryBound`` of where
/// it started, and a second attack adds next to nothing (what grew is the allocator's, not kept).
@Suite("Session API: a hostile client", .serialized)
struct HostileClientTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The longest another client waits for an answer while the hostile one runs: a bound of a
    /// wait like every other, times ``TestTime/scale`` (a loaded machine raises it for all).
    static let latencyBound: Duration = TestTime.scaled(.seconds(1))
    /// How much the daemon's RSS may grow during the attack, and keep after it.
    static let memoryBound = (during: 64 << 20, after: 16 << 20, secondAttack: 4 << 20)

    /// A method of the API as the introspection XML states it.
    struct Method {
        let interface: String
        let member: String
        let signature: String
    }

    /// Every method of docs/org.audiosession.xml with its input signature.
    static func methods() throws -> [Method] {
        let xml = try String(contentsOf: repository.appendingPathComponent("docs/org.audiosession.xml"), encoding: .utf8)
        return IntrospectionMembers.parse(xml).compactMap { line -> Method? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count >= 2, fields[1] == "method", let dot = fields[0].lastIndex(of: ".") else { return nil }
            let arguments = fields.count > 2 ? fields[2].split(separator: ",") : []
            let inputs = arguments.filter { $0.hasSuffix(":in") }.map { argument -> String in
                let typed = argument.split(separator: "=", maxSplits: 1).last ?? ""
                return String(typed.dropLast(3))
            }
            return Method(interface: String(fields[0][..<dot]), member: String(fields[0][fields[0].index(after: dot)...]),
                          signature: inputs.joined())
        }.sorted { "\($0.interface).\($0.member)" < "\($1.interface).\($1.member)" }
    }

    @Test func aHostileClientChangesNothingOfOthersAndTheyAreServedInTime() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let methods = try Self.methods()
        #expect(methods.count > 20, "the API's methods: \(methods.map(\.member))")

        // Another app's session, playing.
        let victim = try sandbox.connect()
        let victimSession = try await SessionClient.create(on: victim, app: "victim")
        try await victimSession.setCategory("playback")
        try await victimSession.setActive(true)
        let observer = try sandbox.connect()
        _ = try await listSessions(observer)
        let before = try Self.rss(of: sandbox.daemon.pid)

        // The third client, every 20 ms: ListSessions and a property of the victim's session.
        let seen = Observation(rss: before)
        let watch = Task {
            while seen.attacking.withLock({ $0 }) {
                let start = ContinuousClock.now
                let phase = seen.phase.withLock { $0 }
                _ = try? await listSessions(observer)
                _ = try? await victimSession.property("Category")
                seen.record(.now - start, during: phase)
                if let rss = try? Self.rss(of: sandbox.daemon.pid) { seen.peak.withLock { $0 = max($0, rss) } }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }

        let started = ContinuousClock.now
        var outcomes = try await attack(sandbox, victim: victimSession, methods: methods, seed: 0x5EED_0BAD_CAFE_F00D, seen: seen)
        let afterFirst = try Self.rss(of: sandbox.daemon.pid)
        // Again, with other random calls: what it keeps must not grow with each attack.
        outcomes.merge(try await attack(sandbox, victim: victimSession, methods: methods, seed: 0xD15E_A5ED_0000_0001, seen: seen)) { $0 + $1 }
        let duration = ContinuousClock.now - started
        seen.attacking.withLock { $0 = false }
        await watch.value

        // Nothing of the victim changed; the hostile sessions went with their connections.
        #expect(try await victimSession.property("Category") == .string("playback"))
        #expect(try await victimSession.property("Active") == .bool(true))
        try await waitUntil(timeout: .seconds(10), "only the victim's session is left") { () async -> Bool in
            (try? await listSessions(observer).count) == 1
        }
        #expect(outcomes["org.freedesktop.DBus.Error.LimitsExceeded", default: 0] > 0, "the flood met the per-client limit: \(outcomes)")
        #expect(outcomes["org.audiosession.Error.ResourceNotAvailable", default: 0] >= 8 * 6, "the session cap: \(outcomes)")
        #expect(outcomes["org.audiosession.Error.MissingEntitlement", default: 0] > 0, "the victim's session refused: \(outcomes)")
        #expect(outcomes.keys.allSatisfy { $0 == "answered" || $0.hasPrefix("org.audiosession.Error.") || $0.hasPrefix("org.freedesktop.DBus.Error.") },
                "every call answered or refused with a D-Bus error: \(outcomes)")
        #expect(sandbox.daemon.isRunning)

        let waits = seen.latencies.withLock { $0 }.sorted()
        let slowest = waits.last ?? .zero
        let byPhase = seen.slowestByPhase.withLock { $0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        #expect(waits.count > 10, "the observer was served during the attack")
        #expect(slowest <= Self.latencyBound, "another client waited \(slowest); the slowest wait of each part of the attack: \(byPhase)")
        let after = try Self.rss(of: sandbox.daemon.pid)
        let highest = seen.peak.withLock { $0 }
        #expect(after - afterFirst <= Self.memoryBound.secondAttack, "RSS \(afterFirst >> 10) KiB after one attack, \(after >> 10) KiB after two")
        #expect(highest - before <= Self.memoryBound.during, "RSS \(before >> 10) KiB grew to \(highest >> 10) KiB")
        #expect(after - before <= Self.memoryBound.after, "RSS \(before >> 10) KiB is \(after >> 10) KiB after the attack")
        let total = outcomes.values.reduce(0, +)
        print("""
            hostile client: \(total) calls in two attacks, \(duration) (\(outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")));
              the other client: \(waits.count) answers, p50 \(waits[waits.count / 2]), p99 \(waits[waits.count * 99 / 100]), slowest \(slowest);
              its slowest wait in each part of the attack: \(byPhase);
              daemon RSS \(before >> 10) KiB before, \(highest >> 10) KiB at most, \(afterFirst >> 10) KiB after one attack, \(after >> 10) KiB after two
            """)
    }

    /// One attack, bounded: a flood, every method with random arguments on every kind of object,
    /// huge values, connections that fill the session cap and vanish. Returns its calls' outcomes.
    private func attack(
        _ sandbox: ServiceSandbox, victim: SessionClient, methods: [Method], seed: UInt64, seen: Observation
    ) async throws -> [String: Int] {
        let hostile = try sandbox.connect()
        let own = try await SessionClient.create(on: hostile, app: "hostile")
        var outcomes: [String: Int] = [:]
        func count(_ body: () async throws -> Void) async {
            do {
                try await body()
                outcomes["answered", default: 0] += 1
            } catch let error as BusError {
                outcomes[error.name, default: 0] += 1
            } catch {
                outcomes["\(error)", default: 0] += 1
            }
        }

        // 1. A flood: 3,000 calls at once on its own session.
        seen.phase.withLock { $0 = "1 flood" }
        let flood = await withTaskGroup(of: String.self) { group in
            for index in 0..<3_000 {
                group.addTask {
                    do {
                        try await own.call("SetPreferredSampleRate", [.double(index % 2 == 0 ? 48_000 : 44_100)], timeout: .seconds(30))
                        return "answered"
                    } catch let error as BusError { return error.name } catch { return "\(error)" }
                }
            }
            var outcomes: [String: Int] = [:]
            for await outcome in group { outcomes[outcome, default: 0] += 1 }
            return outcomes
        }
        outcomes.merge(flood) { $0 + $1 }

        // 2. Every method, with arguments of its signature and of others, on every kind of object.
        seen.phase.withLock { $0 = "2 random calls" }
        var generator = RandomArguments(seed: seed)
        let targets = [ServiceSandbox.manager, own.path, victim.path, "/org/audiosession/Session/999999", "/org/audiosession"]
        for _ in 0..<600 {
            let method = generator.pick(methods)
            let signature = generator.chance(0.7) ? method.signature : generator.signature()
            let path = method.interface == ServiceSandbox.managerInterface && generator.chance(0.8)
                ? ServiceSandbox.manager : generator.pick(targets)
            let member = generator.chance(0.05) ? "No\(method.member)" : method.member
            // Never the victim-independent calls that would need a user (a permission prompt waits).
            if member == "RequestRecordPermission" { continue }
            await count {
                _ = try await hostile.call(ServiceSandbox.busName, path: path, interface: method.interface, member: member,
                                           generator.values(signature), timeout: .seconds(10))
            }
        }

        // 3. Huge strings and arrays: 4 MiB names and inputs, 200,000-element arrays.
        seen.phase.withLock { $0 = "3 huge values" }
        let huge = String(repeating: "x", count: 4 << 20)
        let many = BusValue.array(element: "s", Array(repeating: .string("playback"), count: 200_000))
        for _ in 0..<5 {
            await count { _ = try await managerCall(hostile, "CreateSession", [.string(huge)]) }
            await count { try await own.call("SetPreferredInput", [.string(huge)], timeout: .seconds(10)) }
            await count { try await own.call("SetCategory", [.string(huge), .string(huge), .uint32(0)], timeout: .seconds(10)) }
            await count { try await own.call("SetCategory", [many], timeout: .seconds(10)) }
            await count { _ = try await managerCall(hostile, "SetRecordPermission", [.string(huge), .string("granted")]) }
        }

        // 4. Connections that make sessions up to the cap and past it, then vanish.
        seen.phase.withLock { $0 = "4 sessions to the cap" }
        for _ in 0..<8 {
            let passing = try sandbox.connect()
            for _ in 0..<70 { await count { _ = try await managerCall(passing, "CreateSession", [.string("passing")]) } }
            passing.close()
        }
        hostile.close()
        return outcomes
    }

    /// What the third client saw while the attack went on, and in which part of it.
    final class Observation: Sendable {
        let latencies = Mutex<[Duration]>([])
        let slowestByPhase = Mutex<[String: Duration]>([:])
        let phase = Mutex("0 before")
        let peak: Mutex<Int>
        let attacking = Mutex(true)
        init(rss: Int) { peak = Mutex(rss) }

        /// One answer's wait, counted in the part of the attack it began in.
        func record(_ wait: Duration, during phase: String) {
            latencies.withLock { $0.append(wait) }
            slowestByPhase.withLock { $0[phase] = max($0[phase] ?? .zero, wait) }
        }
    }

    /// The process's resident set in bytes.
    static func rss(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) << 10
    }
}

/// Random D-Bus values for a signature (and random signatures), from a seed: a failure replays.
struct RandomArguments {
    var generator: RobustnessTests.Generator

    init(seed: UInt64) { generator = .init(state: seed) }

    mutating func chance(_ probability: Double) -> Bool { Double(generator.next() % 1_000) < probability * 1_000 }
    mutating func pick<T>(_ items: [T]) -> T { generator.pick(items) }

    /// One to three random complete types.
    mutating func signature() -> String {
        (0..<(1 + Int(generator.next() % 3))).map { _ in completeType(depth: 0) }.joined()
    }

    private mutating func completeType(depth: Int) -> String {
        let basic = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g"]
        guard depth < 3, chance(0.3) else { return pick(basic) }
        switch generator.next() % 4 {
        case 0: return "a" + completeType(depth: depth + 1)
        case 1: return "a{" + pick(basic) + completeType(depth: depth + 1) + "}"
        case 2: return "(" + completeType(depth: depth + 1) + completeType(depth: depth + 1) + ")"
        default: return "v"
        }
    }

    /// Values for every complete type of `signature`.
    mutating func values(_ signature: String) -> [BusValue] {
        var rest = Substring(signature)
        var values: [BusValue] = []
        while !rest.isEmpty { values.append(value(&rest)) }
        return values
    }

    private mutating func value(_ rest: inout Substring) -> BusValue {
        let code = rest.removeFirst()
        switch code {
        case "y": return .byte(UInt8(truncatingIfNeeded: generator.next()))
        case "b": return .bool(chance(0.5))
        case "n": return .int16(Int16(truncatingIfNeeded: generator.next()))
        case "q": return .uint16(UInt16(truncatingIfNeeded: generator.next()))
        case "i": return .int32(pick([0, -1, 1, 2, 3, Int32.min, Int32.max, Int32(truncatingIfNeeded: generator.next())]))
        case "u": return .uint32(generator.bits())
        case "x": return .int64(Int64(bitPattern: generator.next()))
        case "t": return .uint64(generator.next())
        case "d": return .double(generator.double())
        case "s": return .string(generator.string())
        case "o": return .objectPath(pick(["/", "/org/audiosession/Session/1", "/org/audiosession/Manager1", "/a/b"]))
        case "g": return .signature(pick(["", "s", "a{sv}", "(ii)"]))
        case "v":
            var inner = Substring(completeType(depth: 1))
            return .variant(value(&inner))
        case "a":
            let length = completeTypeLength(rest)
            let element = String(rest.prefix(length))
            rest = rest.dropFirst(length)
            let items = (0..<Int(generator.next() % 4)).map { _ -> BusValue in
                var one = Substring(element)
                return value(&one)
            }
            return .array(element: element, items)
        case "{":
            let key = value(&rest)
            let item = value(&rest)
            rest.removeFirst()  // "}"
            return .dictEntry(key: key, value: item)
        case "(":
            var fields: [BusValue] = []
            while rest.first != ")" { fields.append(value(&rest)) }
            rest.removeFirst()
            return .structure(fields)
        default:
            return .string("?")
        }
    }

    /// The length of the complete type at the start of `signature`.
    private func completeTypeLength(_ signature: Substring) -> Int {
        guard let first = signature.first else { return 0 }
        switch first {
        case "a": return 1 + completeTypeLength(signature.dropFirst())
        case "(", "{":
            var depth = 0
            for (offset, character) in signature.enumerated() {
                if character == "(" || character == "{" { depth += 1 }
                if character == ")" || character == "}" { depth -= 1 }
                if depth == 0 { return offset + 1 }
            }
            return signature.count
        default: return 1
        }
    }
}
