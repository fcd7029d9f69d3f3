// BusEngine: one sd-bus connection driven by its own thread. Every sd-bus call happens on that
// thread; other threads hand it work through a mutex-guarded FIFO and an eventfd wake-up, the
// same discipline as the PipeWire loop. FIFO order is a guarantee callers rely on: an object
// exported before a reply is sent exists when the peer sees the reply.

import CSystemd
import Glibc
import Logging
import SessionBusShim
import Synchronization

/// Work run on the bus thread, in the order it was enqueued.
typealias BusWork = @Sendable (BusEngine) -> Void

/// An sd_bus_message reference moved between threads; only the bus thread dereferences it.
struct MessageRef: @unchecked Sendable {
    let pointer: OpaquePointer
}

final class BusEngine: @unchecked Sendable {
    // MARK: Any thread
    let uniqueName: String
    let limits: BusLimits
    let logger = Logger(label: "audiosession.bus")
    /// Paths exported (or about to be), claimed synchronously so duplicate exports fail at the caller.
    let exportedPaths = Mutex<Set<String>>([])

    private struct Queue {
        var work: [BusWork] = []
        var accepting = true
        var stopRequested = false
    }
    private let queue = Mutex(Queue())
    private let wakeFD: Int32
    private let threadStarted = Mutex<pthread_t?>(nil)

    // MARK: Bus thread only (after start())
    private(set) var bus: OpaquePointer?
    var objects: [String: BusObject] = [:]
    var peers: [String: PeerState] = [:]
    var waiters: [ObjectIdentifier: ReplyWaiter] = [:]
    var subscriptions: [ObjectIdentifier: SignalSubscription] = [:]
    var peerDisconnectHandler: (@Sendable (String) -> Void)?
    private var nameOwnerSlot: OpaquePointer?

    /// Connects (to `address`, or the user session bus from the environment) and completes the
    /// Hello handshake; runs on the caller's thread before the bus thread exists.
    init(address: String?, limits: BusLimits) throws(BusError) {
        self.limits = limits
        var bus: OpaquePointer?
        let target = address ?? "the session bus (DBUS_SESSION_BUS_ADDRESS)"
        var result: Int32
        if let address {
            result = sd_bus_new(&bus)
            if result >= 0 { result = address.withCString { sd_bus_set_address(bus, $0) } }
            if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
            // Access control is the daemon's: no per-call privilege queries inside sd-bus
            // (sd_bus_open_user sets the same for the user bus).
            if result >= 0 { result = sd_bus_set_trusted(bus, 1) }
            if result >= 0 { result = sd_bus_start(bus) }
        } else {
            result = sd_bus_open_user(&bus)
        }
        var name: UnsafePointer<CChar>?
        if result >= 0 { result = sd_bus_get_unique_name(bus, &name) }
        guard result >= 0, let bus, let name else {
            _ = sd_bus_flush_close_unref(bus)
            throw BusError(errno: result, "cannot connect to \(target)")
        }
        self.bus = bus
        self.uniqueName = String(cString: name)
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            _ = sd_bus_flush_close_unref(bus)
            throw BusError(errno: errno, "cannot create an eventfd")
        }
    }

    deinit {
        close(wakeFD)
    }

    /// Subscribes to NameOwnerChanged (synchronously, so no disconnect can be missed) and starts the thread.
    func start() throws(BusError) {
        guard let bus else { throw .disconnected() }
        var slot: OpaquePointer?
        let result = sd_bus_match_signal(
            bus, &slot, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
            { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                Unmanaged<BusEngine>.fromOpaque(userdata).takeUnretainedValue().nameOwnerChanged(message)
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
        guard result >= 0 else { throw BusError(errno: result, "cannot watch NameOwnerChanged") }
        nameOwnerSlot = slot

        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { context in
                nameCurrentThread("sd-bus")
                Unmanaged<BusEngine>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        guard created == 0 else {
            Unmanaged<BusEngine>.fromOpaque(context).release()
            throw BusError(errno: created, "cannot start the bus thread")
        }
        threadStarted.withLock { $0 = thread }
    }

    // MARK: - Handing work to the bus thread

    /// Queues `work` for the bus thread; false once the connection is closed (the work is dropped).
    @discardableResult
    func enqueue(_ work: @escaping BusWork) -> Bool {
        let (accepted, wasEmpty) = queue.withLock { queue -> (Bool, Bool) in
            guard queue.accepting else { return (false, false) }
            queue.work.append(work)
            return (true, queue.work.count == 1)
        }
        if accepted && wasEmpty { wake() }
        return accepted
    }

    var isOpen: Bool { queue.withLock { $0.accepting && !$0.stopRequested } }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Stops the thread after it has run the work queued so far and flushed outgoing messages.
    /// Waits for it, unless called on the bus thread itself.
    func stop() {
        queue.withLock { $0.stopRequested = true }
        wake()
        guard let thread = threadStarted.withLock({ value -> pthread_t? in
            defer { value = nil }
            return value
        }) else { return }
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    // MARK: - The loop

    /// Messages dispatched per turn before the bus is polled again; queued work (replies,
    /// installs, signals) runs before each of them, so a flooding peer cannot keep replies to
    /// others from going out.
    private static let messagesPerTurn = 64

    private func run() {
        var fds = [pollfd](repeating: pollfd(), count: 2)
        loop: while true {
            guard runQueuedWork() else { break }
            guard let bus else { break }
            var busy = false
            for _ in 0..<Self.messagesPerTurn {
                // What the service did before a peer could see it is carried out before the
                // next message: a session's object is installed before the call on it that a
                // peer makes on reading Manager1.Sessions (the property is stored at once, the
                // install queued; with the queue run only between batches, the call found
                // `UnknownObject`).
                guard runQueuedWork() else { break loop }
                let result = sd_bus_process(bus, nil)
                if result < 0 {
                    connectionLost(result)
                    break loop
                }
                if result == 0 {
                    busy = false
                    break
                }
                busy = true
            }
            if busy { continue }

            let events = sd_bus_get_events(bus)
            if events < 0 {
                connectionLost(events)
                break
            }
            fds[0] = pollfd(fd: sd_bus_get_fd(bus), events: Int16(events), revents: 0)
            fds[1] = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&fds, 2, pollTimeoutMilliseconds(bus))
            if fds[1].revents & Int16(POLLIN) != 0 {
                var counter: UInt64 = 0
                _ = read(wakeFD, &counter, 8)
            }
        }
        shutDown()
    }

    /// Runs the queued work; false when a stop was requested.
    private func runQueuedWork() -> Bool {
        let (work, stop) = queue.withLock { queue -> ([BusWork], Bool) in
            defer { queue.work.removeAll(keepingCapacity: true) }
            return (queue.work, queue.stopRequested)
        }
        for item in work { item(self) }
        return !stop
    }

    private func pollTimeoutMilliseconds(_ bus: OpaquePointer) -> Int32 {
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else { return -1 }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        guard deadline > nowMicroseconds else { return 0 }
        return Int32(min((deadline - nowMicroseconds + 999) / 1000, UInt64(Int32.max)))
    }

    private func connectionLost(_ result: Int32) {
        logger.warning("D-Bus connection lost", metadata: ["error": "\(String(cString: strerror(-result)))"])
    }

    /// Runs what is still queued, answers every waiter, drops objects and subscriptions, then
    /// flushes and closes the connection. Work queued afterwards is refused by `enqueue`.
    private func shutDown() {
        queue.withLock { $0.stopRequested = true }  // isOpen is false before any stream ends
        _ = runQueuedWork()
        for object in objects.values { uninstall(object) }
        objects.removeAll()
        for waiter in waiters.values { waiter.finish(.failure(.disconnected())) }
        waiters.removeAll()
        for subscription in subscriptions.values { subscription.end() }
        subscriptions.removeAll()
        for peer in peers.values { for waiting in peer.waiting { sd_bus_message_unref(waiting.message.pointer) } }
        peers.removeAll()
        peerDisconnectHandler = nil  // may capture the connection: break that cycle
        nameOwnerSlot = nameOwnerSlot.flatMap { sd_bus_slot_unref($0) }
        _ = sd_bus_flush_close_unref(bus)
        bus = nil
        queue.withLock { $0.accepting = false }
        // Work that raced with the close sees `bus == nil` and only answers its continuations.
        _ = runQueuedWork()
    }
}

/// Names the calling thread (its `comm`, as ps, top and /proc show it; a new thread otherwise
/// inherits its creator's name). Through /proc/thread-self: Glibc's Swift module leaves out
/// pthread_setname_np, a GNU extension.
private func nameCurrentThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = name.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, min(15, $0.count - 1)) }
    close(descriptor)
}
