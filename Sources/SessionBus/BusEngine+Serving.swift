// BusEngine+Serving: the service side on the bus thread. Builds sd-bus vtables for exported
// objects, turns incoming method calls into BusCalls (with the caller's uid and pid, fetched
// asynchronously once per peer), bounds the calls a peer may have in flight, answers property
// reads from the object's store and reports peers that left the bus.

import CSystemd
import Glibc
import SessionBusShim

/// What the engine knows about one peer (a unique connection name) that called us.
struct PeerState {
    struct WaitingCall {
        let message: MessageRef
        let object: BusObject
        let method: BusMethod
        let arguments: [BusValue]
    }
    /// Nil until GetConnectionCredentials has answered.
    var caller: BusCaller?
    /// Calls that arrived before the credentials, delivered in order once they are known.
    var waiting: [WaitingCall] = []
    /// Calls handed to a handler and not answered yet.
    var inFlight = 0
}

extension BusEngine {
    // MARK: - Objects

    func install(_ object: BusObject) {
        guard let bus else { return }
        let context = Unmanaged.passUnretained(object).toOpaque()
        for interface in object.interfaces {
            guard let table = makeVtable(for: interface) else {
                logger.error("cannot build the vtable", metadata: ["interface": "\(interface.name)"])
                continue
            }
            var slot: OpaquePointer?
            let result = object.path.withCString { path in
                interface.name.withCString { name in
                    sd_bus_add_object_vtable(bus, &slot, path, name, sbs_vtable_finish(table), context)
                }
            }
            guard result >= 0, let slot else {
                sbs_vtable_free(table)
                logger.error(
                    "cannot export the object",
                    metadata: [
                        "path": "\(object.path)", "interface": "\(interface.name)",
                        "error": "\(String(cString: strerror(-result)))",
                    ])
                continue
            }
            object.slots.append(slot)
            object.vtables.append(table)
        }
        objects[object.path] = object
    }

    /// Stops serving the object. Its vtables stay allocated until the object itself goes away:
    /// calls already delivered point into them (sd-bus checks replies against the vtable's result
    /// signature), and every BusCall keeps its object alive until it is answered.
    func uninstall(_ object: BusObject) {
        for slot in object.slots { sd_bus_slot_unref(slot) }
        object.slots.removeAll()
        if objects[object.path] === object { objects[object.path] = nil }
    }

    private func makeVtable(for interface: BusInterface) -> OpaquePointer? {
        guard let table = sbs_vtable_new() else { return nil }
        func names(_ arguments: [BusArgument]) -> [CChar] {
            arguments.flatMap { Array($0.name.utf8CString) }  // each name with its NUL, as SD_BUS_PARAM
        }
        let unprivileged = UInt64(SD_BUS_VTABLE_UNPRIVILEGED)
        var ok = true
        for method in interface.methods {
            let list = names(method.inputs + method.outputs)
            ok = ok && list.withUnsafeBufferPointer { buffer in
                sbs_vtable_add_method(
                    table, method.name, method.inputSignature, method.outputSignature, buffer.baseAddress,
                    buffer.count, methodTrampoline, unprivileged) >= 0
            }
        }
        for property in interface.properties {
            let flags: UInt64
            switch property.changes {
            case .emitsValue: flags = UInt64(SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE)
            case .invalidates: flags = UInt64(SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION)
            case .constant: flags = UInt64(SD_BUS_VTABLE_PROPERTY_CONST)
            }
            let setter: sd_bus_property_set_t? = property.access == .readWrite ? propertySetTrampoline : nil
            ok = ok && sbs_vtable_add_property(
                table, property.name, property.signature, propertyGetTrampoline, setter,
                flags | (setter == nil ? 0 : unprivileged)) >= 0
        }
        for signal in interface.signals {
            let list = names(signal.arguments)
            ok = ok && list.withUnsafeBufferPointer { buffer in
                sbs_vtable_add_signal(table, signal.name, signal.signature, buffer.baseAddress, buffer.count, 0) >= 0
            }
        }
        guard ok else {
            sbs_vtable_free(table)
            return nil
        }
        return table
    }

    // MARK: - Incoming method calls

    /// Called by sd-bus for a method of an exported object. Always answers the call, now or later.
    fileprivate func receiveCall(_ message: OpaquePointer, for object: BusObject) {
        let ref = MessageRef(pointer: sd_bus_message_ref(message))
        guard let senderPointer = sd_bus_message_get_sender(message) else {
            replyError(ref, .failed("calls without a sender (direct connections) are not served"))
            return
        }
        let sender = String(cString: senderPointer)
        let interfaceName = sd_bus_message_get_interface(message).map { String(cString: $0) } ?? ""
        let member = sd_bus_message_get_member(message).map { String(cString: $0) } ?? ""
        guard let method = object.interfaces.first(where: { $0.name == interfaceName })?.method(named: member) else {
            replyError(ref, .failed("no method \(interfaceName).\(member)"))
            return
        }
        var peer = peers[sender] ?? PeerState()
        // Checked before decoding: refusing a flood must stay cheap.
        guard peer.inFlight + peer.waiting.count < limits.maxCallsInFlightPerPeer else {
            replyError(
                ref,
                .limitsExceeded("\(sender) has \(limits.maxCallsInFlightPerPeer) calls in flight; wait for replies"))
            return
        }
        let arguments: [BusValue]
        do {
            arguments = try MessageCoding.readAll(message)
        } catch {
            replyError(ref, error)
            return
        }
        if let caller = peer.caller {
            peer.inFlight += 1
            peers[sender] = peer
            deliver(ref, object: object, method: method, arguments: arguments, caller: caller)
            return
        }
        let firstWaiting = peer.waiting.isEmpty
        peer.waiting.append(.init(message: ref, object: object, method: method, arguments: arguments))
        peers[sender] = peer
        if firstWaiting { fetchCredentials(of: sender) }
    }

    private func deliver(
        _ ref: MessageRef, object: BusObject, method: BusMethod, arguments: [BusValue], caller: BusCaller
    ) {
        let call = BusCall(
            engine: self, message: ref, object: object,
            interface: sd_bus_message_get_interface(ref.pointer).map { String(cString: $0) } ?? "",
            method: method, arguments: arguments, caller: caller,
            expectsReply: sd_bus_message_get_expect_reply(ref.pointer) > 0)
        object.handler(call)
    }

    /// Asks the bus daemon for the peer's uid and pid (GetConnectionCredentials), without blocking.
    private func fetchCredentials(of sender: String) {
        startCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionCredentials", arguments: [.string(sender)], timeoutMicroseconds: 0
        ) { engine, result in
            guard var peer = engine.peers[sender] else { return }  // left meanwhile: calls already dropped
            let waiting = peer.waiting
            peer.waiting.removeAll()
            let credentials = (try? result.get())?.first?.dictionaryValue
            guard let uid = credentials?["UnixUserID"]?.uint32Value, let pid = credentials?["ProcessID"]?.uint32Value
            else {
                engine.peers[sender] = peer
                for call in waiting {
                    engine.replyError(call.message, .failed("cannot read the caller's credentials"))
                }
                return
            }
            let caller = BusCaller(uniqueName: sender, uid: uid, pid: pid)
            peer.caller = caller
            peer.inFlight += waiting.count
            engine.peers[sender] = peer
            for call in waiting {
                engine.deliver(call.message, object: call.object, method: call.method, arguments: call.arguments, caller: caller)
            }
        }
    }

    /// Sends the reply of `ref` (if the caller wants one) and releases it. Bus thread.
    func sendReply(_ ref: MessageRef, values: [BusValue], expectedSignature: String, sender: String) {
        settle(sender)
        defer { sd_bus_message_unref(ref.pointer) }
        guard let bus, sd_bus_message_get_expect_reply(ref.pointer) > 0 else { return }
        let signature = BusValue.signature(of: values)
        guard signature == expectedSignature else {
            logger.error("handler replied with the wrong signature", metadata: ["got": "\(signature)", "want": "\(expectedSignature)"])
            sendError(ref, .failed("internal error: reply \"\(signature)\" does not match \"\(expectedSignature)\""))
            return
        }
        var reply: OpaquePointer?
        var result = sd_bus_message_new_method_return(ref.pointer, &reply)
        if result >= 0, let reply {
            do {
                try MessageCoding.append(values, to: reply)
                result = sd_bus_send(bus, reply, nil)
            } catch {
                sendError(ref, .failed("internal error: cannot encode the reply: \(error.message)"))
            }
        }
        sd_bus_message_unref(reply)
        if result < 0 { logger.warning("cannot send a reply", metadata: ["error": "\(String(cString: strerror(-result)))"]) }
    }

    /// Sends an error reply for a delivered call and releases it. Bus thread.
    func sendFailure(_ ref: MessageRef, error: BusError, sender: String) {
        settle(sender)
        replyError(ref, error)
    }

    private func settle(_ sender: String) {
        if var peer = peers[sender] {
            peer.inFlight = max(0, peer.inFlight - 1)
            peers[sender] = peer
        }
    }

    /// Error reply `(s message[, i code])`, then releases the call.
    func replyError(_ ref: MessageRef, _ error: BusError) {
        sendError(ref, error)
        sd_bus_message_unref(ref.pointer)
    }

    private func sendError(_ ref: MessageRef, _ error: BusError) {
        guard let bus, sd_bus_message_get_expect_reply(ref.pointer) > 0 else { return }
        let name = BusNames.isValidInterfaceName(error.name) ? error.name : "org.freedesktop.DBus.Error.Failed"
        var reply: OpaquePointer?
        var result = name.withCString { namePointer in
            error.wireMessage.withCString { text in
                var busError = sd_bus_error(name: namePointer, message: text, _need_free: 0)
                return sd_bus_message_new_method_error(ref.pointer, &reply, &busError)
            }
        }
        if result >= 0, let reply {
            if let code = error.code { result = (try? MessageCoding.append([.int32(code)], to: reply)) == nil ? -EINVAL : 0 }
            if result >= 0 { result = sd_bus_send(bus, reply, nil) }
        }
        sd_bus_message_unref(reply)
        if result < 0 { logger.warning("cannot send an error reply", metadata: ["error": "\(String(cString: strerror(-result)))"]) }
    }

    // MARK: - Properties

    fileprivate func writeProperty(
        _ message: OpaquePointer, object: BusObject, interface: String, name: String
    ) throws(BusError) {
        guard let value = try MessageCoding.readOne(message) else { throw .invalidArgs("missing value") }
        guard let writeHandler = object.writeHandler else { throw .failed("property \(name) is not writable") }
        let sender = sd_bus_message_get_sender(message).map { String(cString: $0) } ?? ""
        let caller = try callerSynchronously(sender)
        try writeHandler(BusPropertyWrite(path: object.path, interface: interface, name: name, value: value, caller: caller))
        try object.store(value, for: name, of: interface)
        emitPropertiesChanged(object, interface: interface, names: [name])
    }

    /// The caller of a property write: cached, else one synchronous GetConnectionCredentials
    /// (sd-bus setters must answer at once; writes are rare, and method calls never take this path).
    private func callerSynchronously(_ sender: String) throws(BusError) -> BusCaller {
        if let caller = peers[sender]?.caller { return caller }
        guard let bus else { throw .disconnected() }
        var call: OpaquePointer?
        var reply: OpaquePointer?
        var error = sd_bus_error()
        defer {
            sd_bus_message_unref(call)
            sd_bus_message_unref(reply)
            sd_bus_error_free(&error)
        }
        var result = sd_bus_message_new_method_call(
            bus, &call, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionCredentials")
        guard result >= 0, let call else { throw BusError(errno: result, "cannot read the caller's credentials") }
        try MessageCoding.append(.string(sender), to: call)
        result = sd_bus_call(bus, call, 0, &error, &reply)
        guard result >= 0, let reply else { throw BusError(errno: result, "cannot read the caller's credentials") }
        let credentials = try MessageCoding.readAll(reply).first?.dictionaryValue
        guard let uid = credentials?["UnixUserID"]?.uint32Value, let pid = credentials?["ProcessID"]?.uint32Value else {
            throw .failed("the bus daemon did not report the caller's credentials")
        }
        let caller = BusCaller(uniqueName: sender, uid: uid, pid: pid)
        var peer = peers[sender] ?? PeerState()
        peer.caller = caller
        peers[sender] = peer
        return caller
    }

    /// Emits PropertiesChanged for `names` of a still-exported object. Bus thread.
    func emitPropertiesChanged(_ object: BusObject, interface: String, names: [String]) {
        guard let bus, objects[object.path] === object, !names.isEmpty else { return }
        var pointers: [UnsafeMutablePointer<CChar>?] = names.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        let result = pointers.withUnsafeMutableBufferPointer { buffer in
            sd_bus_emit_properties_changed_strv(bus, object.path, interface, buffer.baseAddress)
        }
        if result < 0 {
            logger.warning("cannot emit PropertiesChanged", metadata: ["error": "\(String(cString: strerror(-result)))"])
        }
    }

    /// Emits a signal from a still-exported object. Bus thread.
    func emitSignal(
        _ object: BusObject, interface: String, member: String, arguments: [BusValue], destination: String?
    ) {
        guard let bus, objects[object.path] === object else { return }
        var message: OpaquePointer?
        var result = sd_bus_message_new_signal(bus, &message, object.path, interface, member)
        if result >= 0, let message {
            do {
                try MessageCoding.append(arguments, to: message)
                result = sd_bus_send_to(bus, message, destination, nil)
            } catch {
                result = -EINVAL
            }
        }
        sd_bus_message_unref(message)
        if result < 0 {
            logger.warning("cannot emit a signal", metadata: ["signal": "\(interface).\(member)", "error": "\(String(cString: strerror(-result)))"])
        }
    }

    // MARK: - Peers leaving

    /// NameOwnerChanged(name, old, new): a unique name with no new owner is a peer that disconnected.
    func nameOwnerChanged(_ message: OpaquePointer) {
        guard let values = try? MessageCoding.readAll(message), values.count == 3,
            let name = values[0].stringValue, let newOwner = values[2].stringValue,
            name.hasPrefix(":"), newOwner.isEmpty
        else { return }
        if let peer = peers.removeValue(forKey: name) {
            for call in peer.waiting { sd_bus_message_unref(call.message.pointer) }
        }
        peerDisconnectHandler?(name)
    }
}

// MARK: - sd-bus callbacks (bus thread; userdata is the unretained BusObject, kept alive by `objects`)

private func object(_ userdata: UnsafeMutableRawPointer?) -> BusObject? {
    userdata.map { Unmanaged<BusObject>.fromOpaque($0).takeUnretainedValue() }
}

private let methodTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let object = object(userdata) else { return -EINVAL }
    object.engine.receiveCall(message, for: object)
    return 1
}

private let propertyGetTrampoline: sd_bus_property_get_t = { _, _, interface, property, reply, userdata, busError in
    guard let interface, let property, let reply, let object = object(userdata) else { return -EINVAL }
    let interfaceName = String(cString: interface)
    let name = String(cString: property)
    guard let value = object.value(of: name, in: interfaceName) else {
        return sd_bus_error_set(busError, "org.freedesktop.DBus.Error.Failed", "property \(name) has no value")
    }
    do throws(BusError) {
        try MessageCoding.append(value, to: reply)
        return 1
    } catch {
        return sd_bus_error_set(busError, "org.freedesktop.DBus.Error.Failed", error.message)
    }
}

private let propertySetTrampoline: sd_bus_property_set_t = { _, _, interface, property, value, userdata, busError in
    guard let interface, let property, let value, let object = object(userdata) else { return -EINVAL }
    do throws(BusError) {
        try object.engine.writeProperty(
            value, object: object, interface: String(cString: interface), name: String(cString: property))
        return 1
    } catch {
        let name = BusNames.isValidInterfaceName(error.name) ? error.name : "org.freedesktop.DBus.Error.Failed"
        return sd_bus_error_set(busError, name, error.wireMessage)
    }
}
