// BusEngine+Client: outgoing method calls and signal matches on the bus thread. Each pending
// call or match is a small object the engine keeps alive; sd-bus gets it unretained as userdata.

import CSystemd
import Glibc

/// A method call waiting for its reply (bus thread only).
final class ReplyWaiter {
    unowned let engine: BusEngine
    var slot: OpaquePointer?
    private var completion: ((BusEngine, Result<[BusValue], BusError>) -> Void)?

    init(engine: BusEngine, completion: @escaping (BusEngine, Result<[BusValue], BusError>) -> Void) {
        self.engine = engine
        self.completion = completion
    }

    /// Runs the completion once and forgets the sd-bus slot.
    func finish(_ result: Result<[BusValue], BusError>) {
        slot = slot.flatMap { sd_bus_slot_unref($0) }
        let completion = self.completion
        self.completion = nil
        completion?(engine, result)
    }
}

/// A signal match feeding an AsyncStream. `end()` runs on the bus thread.
final class SignalSubscription: @unchecked Sendable {
    let continuation: AsyncStream<BusSignal>.Continuation
    // Bus thread only:
    var slot: OpaquePointer?
    var installed: ((Result<Void, BusError>) -> Void)?

    init(continuation: AsyncStream<BusSignal>.Continuation) {
        self.continuation = continuation
    }

    func end() {
        slot = slot.flatMap { sd_bus_slot_unref($0) }
        installed?(.failure(.disconnected()))
        installed = nil
        continuation.finish()
    }
}

extension BusEngine {
    /// Sends a method call; `completion` runs on the bus thread with the reply values or error.
    /// `timeoutMicroseconds` 0 means sd-bus's default (25 s).
    @discardableResult
    func startCall(
        destination: String, path: String, interface: String, member: String, arguments: [BusValue],
        timeoutMicroseconds: UInt64, completion: @escaping (BusEngine, Result<[BusValue], BusError>) -> Void
    ) -> ReplyWaiter? {
        guard let bus else {
            completion(self, .failure(.disconnected()))
            return nil
        }
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else {
            completion(self, .failure(BusError(errno: result, "cannot call \(interface).\(member) on \(destination)")))
            return nil
        }
        defer { sd_bus_message_unref(message) }
        do {
            try MessageCoding.append(arguments, to: message)
        } catch {
            completion(self, .failure(error))
            return nil
        }
        let waiter = ReplyWaiter(engine: self, completion: completion)
        var slot: OpaquePointer?
        result = sd_bus_call_async(
            bus, &slot, message, replyTrampoline, Unmanaged.passUnretained(waiter).toOpaque(), timeoutMicroseconds)
        guard result >= 0 else {
            completion(self, .failure(BusError(errno: result, "cannot call \(interface).\(member) on \(destination)")))
            return nil
        }
        waiter.slot = slot
        waiters[ObjectIdentifier(waiter)] = waiter
        return waiter
    }

    /// Sends a call flagged NO_REPLY_EXPECTED. Bus thread.
    func sendWithoutReply(destination: String, path: String, interface: String, member: String, arguments: [BusValue]) {
        guard let bus else { return }
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        if result >= 0, let message {
            result = sd_bus_message_set_expect_reply(message, 0)
            if result >= 0 {
                do {
                    try MessageCoding.append(arguments, to: message)
                    result = sd_bus_send(bus, message, nil)
                } catch {
                    result = -EINVAL
                }
            }
        }
        sd_bus_message_unref(message)
        if result < 0 {
            logger.warning("cannot send a call", metadata: ["call": "\(interface).\(member)", "error": "\(String(cString: strerror(-result)))"])
        }
    }

    /// Drops a pending call (its reply will be ignored) and completes it with `error`.
    func abandon(_ waiter: ReplyWaiter, _ error: BusError) {
        guard waiters.removeValue(forKey: ObjectIdentifier(waiter)) != nil else { return }
        waiter.finish(.failure(error))
    }

    /// Installs a match rule for signals; `subscription.installed` runs once the bus daemon accepted it.
    func subscribe(_ subscription: SignalSubscription, rule: String) {
        guard let bus else {
            subscription.end()
            return
        }
        var slot: OpaquePointer?
        let context = Unmanaged.passUnretained(subscription).toOpaque()
        let result = sd_bus_add_match_async(bus, &slot, rule, signalTrampoline, matchInstalledTrampoline, context)
        guard result >= 0 else {
            subscription.installed?(.failure(BusError(errno: result, "cannot subscribe with \(rule)")))
            subscription.installed = nil
            subscription.end()
            return
        }
        subscription.slot = slot
        subscriptions[ObjectIdentifier(subscription)] = subscription
    }

    /// A D-Bus match rule for signals. Values are quoted; a `'` inside is written `'\''`.
    static func signalMatchRule(
        sender: String?, path: String?, interface: String?, member: String?, arguments: [Int: String]
    ) -> String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            parts.append(key + "='" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'")
        }
        add("sender", sender)
        add("path", path)
        add("interface", interface)
        add("member", member)
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) { add("arg\(index)", value) }
        return parts.joined(separator: ",")
    }

    func unsubscribe(_ subscription: SignalSubscription) {
        subscriptions.removeValue(forKey: ObjectIdentifier(subscription))?.end()
    }

    /// Values of a method return, or the error of an error reply (with its code when it carries one).
    static func decodeReply(_ message: OpaquePointer) -> Result<[BusValue], BusError> {
        if sd_bus_message_is_method_error(message, nil) > 0 {
            let error = sd_bus_message_get_error(message)
            let name = error?.pointee.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            let text = error?.pointee.message.map { String(cString: $0) } ?? ""
            var code: Int32?
            if sd_bus_message_rewind(message, 1) >= 0, let body = try? MessageCoding.readAll(message), body.count >= 2 {
                code = body[1].int32Value
            }
            return .failure(BusError(name: name, wireMessage: text, code: code))
        }
        do {
            return .success(try MessageCoding.readAll(message))
        } catch {
            return .failure(error)
        }
    }
}

// MARK: - sd-bus callbacks (bus thread)

private let replyTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let waiter = Unmanaged<ReplyWaiter>.fromOpaque(userdata).takeUnretainedValue()
    let engine = waiter.engine
    guard engine.waiters.removeValue(forKey: ObjectIdentifier(waiter)) != nil else { return 0 }
    waiter.finish(BusEngine.decodeReply(message))
    return 1
}

private let matchInstalledTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let subscription = Unmanaged<SignalSubscription>.fromOpaque(userdata).takeUnretainedValue()
    switch BusEngine.decodeReply(message) {
    case .success: subscription.installed?(.success(()))
    case .failure(let error): subscription.installed?(.failure(error))
    }
    subscription.installed = nil
    return 1
}

private let signalTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let subscription = Unmanaged<SignalSubscription>.fromOpaque(userdata).takeUnretainedValue()
    guard let arguments = try? MessageCoding.readAll(message) else { return 0 }
    func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
    subscription.continuation.yield(
        BusSignal(
            sender: text(sd_bus_message_get_sender(message)), path: text(sd_bus_message_get_path(message)),
            interface: text(sd_bus_message_get_interface(message)), member: text(sd_bus_message_get_member(message)),
            arguments: arguments))
    return 0  // let other matches see the signal too
}
