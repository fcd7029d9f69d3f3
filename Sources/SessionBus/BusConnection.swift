// BusConnection: the public face of SessionBus. One D-Bus connection with its own thread; every
// method is safe to call from any thread and never waits for bus I/O (async ones suspend).

import Synchronization

/// A connection to a D-Bus bus daemon, served by a private thread.
///
/// Work from all threads reaches that thread in FIFO order: e.g. `export` then `call.reply`
/// means the peer can use the object as soon as it sees the reply.
public final class BusConnection: Sendable {
    let engine: BusEngine

    /// This connection's unique name (`:1.42`).
    public var uniqueName: String { engine.uniqueName }

    /// Connects to the user session bus named by `DBUS_SESSION_BUS_ADDRESS` (else
    /// `$XDG_RUNTIME_DIR/bus`).
    public static func session(limits: BusLimits = BusLimits()) throws(BusError) -> BusConnection {
        try BusConnection(engine: BusEngine(address: nil, limits: limits))
    }

    /// Connects to the bus daemon at `address` (a D-Bus address such as `unix:path=/run/x/bus`).
    public convenience init(address: String, limits: BusLimits = BusLimits()) throws(BusError) {
        try self.init(engine: BusEngine(address: address, limits: limits))
    }

    private init(engine: BusEngine) throws(BusError) {
        self.engine = engine
        try engine.start()
    }

    deinit {
        engine.stop()
    }

    /// False once closed or after the bus daemon went away.
    public var isOpen: Bool { engine.isOpen }

    /// Flushes queued messages, closes the connection and stops its thread. Pending calls fail
    /// with `Disconnected`; signal streams finish.
    public func close() {
        engine.stop()
    }

    // MARK: - Serving

    /// Becomes the primary owner of `name`, or throws ``BusError/nameTaken(_:)`` if another
    /// connection owns it (never queues behind it).
    public func requestName(_ name: String) async throws {
        guard BusNames.isValidWellKnownName(name) else { throw BusError.invalidArgs("invalid bus name \"\(name)\"") }
        let doNotQueue: UInt32 = 4
        let reply = try await callBusDaemon("RequestName", [.string(name), .uint32(doNotQueue)])
        switch reply.first?.uint32Value {
        case 1, 4: return  // primary owner / already the owner
        default: throw BusError.nameTaken(name)
        }
    }

    /// Gives up a well-known name.
    public func releaseName(_ name: String) async throws {
        _ = try await callBusDaemon("ReleaseName", [.string(name)])
    }

    /// Serves an object at `path` implementing `interfaces`.
    ///
    /// - Parameters:
    ///   - properties: initial values, by interface then property name; every declared property needs one.
    ///   - writeHandler: accepts or refuses writes to `.readWrite` properties (bus thread; must not block).
    ///   - handler: receives every method call on the bus thread; it must not block: hand the call
    ///     to your own queue and answer it from there.
    /// - Throws: InvalidArgs for a bad path or description, missing or mistyped property values,
    ///   or a path this connection already serves.
    public func export(
        path: String, interfaces: [BusInterface], properties: [String: [String: BusValue]] = [:],
        writeHandler: (@Sendable (BusPropertyWrite) throws(BusError) -> Void)? = nil,
        handler: @escaping @Sendable (BusCall) -> Void
    ) throws(BusError) -> BusObject {
        guard BusNames.isValidObjectPath(path) else { throw .invalidArgs("invalid object path \"\(path)\"") }
        guard !interfaces.isEmpty else { throw .invalidArgs("an object needs at least one interface") }
        guard Set(interfaces.map(\.name)).count == interfaces.count else { throw .invalidArgs("duplicate interface") }
        for interface in interfaces {
            try interface.validate()
            for property in interface.properties {
                guard let value = properties[interface.name]?[property.name] else {
                    throw .invalidArgs("no initial value for \(interface.name).\(property.name)")
                }
                guard value.signature == property.signature else {
                    throw .invalidArgs(
                        "\(interface.name).\(property.name) is \"\(property.signature)\", not \"\(value.signature)\"")
                }
                try value.validate()
            }
        }
        guard engine.exportedPaths.withLock({ $0.insert(path).inserted }) else {
            throw .invalidArgs("\(path) is already exported")
        }
        let object = BusObject(
            engine: engine, path: path, interfaces: interfaces, values: properties, writeHandler: writeHandler,
            handler: handler)
        guard engine.enqueue({ $0.install(object) }) else {
            _ = engine.exportedPaths.withLock { $0.remove(path) }
            throw .disconnected()
        }
        return object
    }

    /// Returns once the bus thread has carried out everything queued before this call (exports,
    /// removals, property changes, signals, replies). `export` and `remove` return at once and take
    /// effect in order with this connection's other work; before telling *another* connection
    /// about a new object by some other route, await this.
    public func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            if !engine.enqueue({ _ in done.resume() }) { done.resume() }
        }
    }

    /// Called on the bus thread with the unique name of every peer that leaves the bus, in order
    /// with the method calls it sent before (a session created by a call is never reported gone
    /// before that call). Must not block.
    public func onPeerDisconnected(_ handler: @escaping @Sendable (String) -> Void) {
        engine.enqueue { $0.peerDisconnectHandler = handler }
    }

    // MARK: - Client

    /// Calls a method and returns the reply's values.
    /// - Throws: ``BusError`` (error replies, `NoReply` after `timeout`, `Disconnected`), or
    ///   `CancellationError` if the task is cancelled.
    public func call(
        _ destination: String, path: String, interface: String, member: String, _ arguments: [BusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws -> [BusValue] {
        let pending = PendingCall()
        let microseconds = UInt64(max(1, timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000))
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard pending.attach(continuation) else { return }  // already cancelled: send nothing
                let accepted = engine.enqueue { engine in
                    pending.waiter = engine.startCall(
                        destination: destination, path: path, interface: interface, member: member,
                        arguments: arguments, timeoutMicroseconds: microseconds
                    ) { _, result in pending.complete(result.mapError { $0 }) }
                }
                if !accepted { pending.complete(.failure(BusError.disconnected())) }
            }
        } onCancel: {
            pending.complete(.failure(CancellationError()))
            engine.enqueue { engine in
                if let waiter = pending.waiter { engine.abandon(waiter, .failed("cancelled")) }
            }
        }
        return try result.get()
    }

    /// Sends a method call flagged NO_REPLY_EXPECTED and returns at once; failures to send are
    /// logged. For notifications whose outcome the sender does not need.
    public func send(
        _ destination: String, path: String, interface: String, member: String, _ arguments: [BusValue] = []
    ) throws(BusError) {
        guard BusNames.isValidObjectPath(path), BusNames.isValidInterfaceName(interface),
            BusNames.isValidMemberName(member)
        else { throw .invalidArgs("invalid path, interface or member: \(path) \(interface).\(member)") }
        let accepted = engine.enqueue { engine in
            engine.sendWithoutReply(
                destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        }
        guard accepted else { throw .disconnected() }
    }

    /// Reads a property (`org.freedesktop.DBus.Properties.Get`).
    public func property(
        _ name: String, of interface: String, at path: String, on destination: String, timeout: Duration = .seconds(25)
    ) async throws -> BusValue {
        let reply = try await call(
            destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            [.string(interface), .string(name)], timeout: timeout)
        guard let value = reply.first?.variantValue else { throw BusError.failed("malformed Get reply") }
        return value
    }

    /// Reads all properties of an interface (`GetAll`).
    public func properties(
        of interface: String, at path: String, on destination: String, timeout: Duration = .seconds(25)
    ) async throws -> [String: BusValue] {
        let reply = try await call(
            destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "GetAll",
            [.string(interface)], timeout: timeout)
        guard let values = reply.first?.dictionaryValue else { throw BusError.failed("malformed GetAll reply") }
        return values
    }

    /// Writes a property (`Set`).
    public func setProperty(
        _ name: String, of interface: String, at path: String, on destination: String, to value: BusValue,
        timeout: Duration = .seconds(25)
    ) async throws {
        _ = try await call(
            destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Set",
            [.string(interface), .string(name), .variant(value)], timeout: timeout)
    }

    /// Signals matching all given fields (nil matches anything), from the moment this returns:
    /// the match rule is installed at the bus daemon before it does. `arguments` matches string
    /// arguments by index (`[0: "org.audiosession.Manager1"]` is the rule's `arg0`), e.g. to
    /// follow one name's NameOwnerChanged. The stream ends when the connection closes; dropping
    /// it removes the match.
    public func signals(
        sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
        arguments: [Int: String] = [:],
        buffering: AsyncStream<BusSignal>.Continuation.BufferingPolicy = .unbounded
    ) async throws -> AsyncStream<BusSignal> {
        if let path, !BusNames.isValidObjectPath(path) { throw BusError.invalidArgs("invalid object path \"\(path)\"") }
        if let interface, !BusNames.isValidInterfaceName(interface) {
            throw BusError.invalidArgs("invalid interface \"\(interface)\"")
        }
        if let member, !BusNames.isValidMemberName(member) { throw BusError.invalidArgs("invalid member \"\(member)\"") }
        guard arguments.keys.allSatisfy((0...63).contains) else { throw BusError.invalidArgs("argument index out of 0...63") }
        let rule = BusEngine.signalMatchRule(
            sender: sender, path: path, interface: interface, member: member, arguments: arguments)
        let (stream, continuation) = AsyncStream.makeStream(of: BusSignal.self, bufferingPolicy: buffering)
        let subscription = SignalSubscription(continuation: continuation)
        let engine = self.engine
        continuation.onTermination = { _ in engine.enqueue { $0.unsubscribe(subscription) } }
        let installed: Result<Void, BusError> = await withCheckedContinuation { done in
            let accepted = engine.enqueue { engine in
                subscription.installed = { done.resume(returning: $0) }
                engine.subscribe(subscription, rule: rule)
            }
            if !accepted { done.resume(returning: .failure(.disconnected())) }
        }
        try installed.get()
        return stream
    }

    private func callBusDaemon(_ member: String, _ arguments: [BusValue]) async throws -> [BusValue] {
        try await call(
            "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: member,
            arguments)
    }
}

/// Joins a continuation, a reply and a cancellation, whichever come, in any order: the first
/// result wins and the continuation is resumed exactly once.
private final class PendingCall: @unchecked Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<[BusValue], any Error>, Never>?
        var result: Result<[BusValue], any Error>?
        var done = false
    }
    private let state = Mutex(State())
    /// Bus thread only.
    var waiter: ReplyWaiter?

    /// Returns false when a result (a cancellation) came first: the continuation is resumed with it.
    func attach(_ continuation: CheckedContinuation<Result<[BusValue], any Error>, Never>) -> Bool {
        let ready = state.withLock { state -> Result<[BusValue], any Error>? in
            if let result = state.result, !state.done {
                state.done = true
                return result
            }
            state.continuation = continuation
            return nil
        }
        guard let ready else { return true }
        continuation.resume(returning: ready)
        return false
    }

    func complete(_ result: Result<[BusValue], any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Result<[BusValue], any Error>, Never>? in
            guard !state.done else { return nil }
            guard let continuation = state.continuation else {
                if state.result == nil { state.result = result }
                return nil
            }
            state.done = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: result)
    }
}
