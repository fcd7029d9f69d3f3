// BusCall: one incoming method call, handed to the object's handler on the bus thread, answered
// later from any thread. The answer travels back through the bus thread's queue.

import CSystemd
import Synchronization

/// Who sent a call: the connection's unique name and its process credentials, as the bus daemon
/// reports them (GetConnectionCredentials), not as the caller claims.
public struct BusCaller: Sendable, Hashable {
    public let uniqueName: String
    public let uid: UInt32
    public let pid: UInt32
    public init(uniqueName: String, uid: UInt32, pid: UInt32) {
        self.uniqueName = uniqueName
        self.uid = uid
        self.pid = pid
    }
}

/// An incoming method call. Answer it exactly once with ``reply(_:)`` or ``fail(_:)``, from any
/// thread, now or later; later answers are ignored. A call dropped unanswered is answered with
/// `org.freedesktop.DBus.Error.Failed`, so the caller never waits for a timeout.
public final class BusCall: @unchecked Sendable {
    public let path: String
    public let interface: String
    public let member: String
    /// The arguments; their types already match the method's input signature (sd-bus checks it).
    public let arguments: [BusValue]
    public let caller: BusCaller
    /// False when the caller sent the call with NO_REPLY_EXPECTED.
    public let expectsReply: Bool

    private let engine: BusEngine
    private let message: MessageRef
    /// Kept until the answer is sent: the message refers to the object's vtable.
    private let object: BusObject
    private let outputSignature: String
    private let answered = Mutex(false)

    init(
        engine: BusEngine, message: MessageRef, object: BusObject, interface: String, method: BusMethod,
        arguments: [BusValue], caller: BusCaller, expectsReply: Bool
    ) {
        self.engine = engine
        self.message = message
        self.object = object
        self.path = object.path
        self.interface = interface
        self.member = method.name
        self.outputSignature = method.outputSignature
        self.arguments = arguments
        self.caller = caller
        self.expectsReply = expectsReply
    }

    /// Replies with `values`, which must match the method's output signature (else the caller
    /// gets `org.freedesktop.DBus.Error.Failed` and the mismatch is logged).
    public func reply(_ values: [BusValue] = []) {
        guard claim() else { return }
        let (message, signature, sender, object) = (self.message, outputSignature, caller.uniqueName, object)
        engine.enqueue { engine in
            withExtendedLifetime(object) {
                engine.sendReply(message, values: values, expectedSignature: signature, sender: sender)
            }
        }
    }

    /// Replies with an error (name, message and optional code).
    public func fail(_ error: BusError) {
        guard claim() else { return }
        let (message, sender, object) = (self.message, caller.uniqueName, object)
        engine.enqueue { engine in
            withExtendedLifetime(object) { engine.sendFailure(message, error: error, sender: sender) }
        }
    }

    /// Argument `index` read with `extract` (e.g. `try call.argument(0, \.stringValue)`); throws
    /// InvalidArgs when it is missing or of another type, so handlers never force-unwrap.
    public func argument<T>(_ index: Int, _ extract: (BusValue) -> T?) throws(BusError) -> T {
        guard arguments.indices.contains(index), let value = extract(arguments[index]) else {
            throw .invalidArgs("argument \(index) of \(interface).\(member) is missing or of the wrong type")
        }
        return value
    }

    private func claim() -> Bool {
        answered.withLock { answered in
            defer { answered = true }
            return !answered
        }
    }

    deinit {
        if claim() {
            let (message, sender, object) = (self.message, caller.uniqueName, object)
            engine.enqueue { engine in
                withExtendedLifetime(object) {
                    engine.sendFailure(message, error: .failed("the service did not answer the call"), sender: sender)
                }
            }
        }
    }
}
