// BusObject: an object this connection serves at a path. Its property values live here, behind a
// mutex, so the daemon can update them from any thread and sd-bus reads them on the bus thread
// without calling back into the daemon.

import SessionBusShim
import Synchronization

/// An exported object. Thread-safe; mutations are carried out on the bus thread in call order.
public final class BusObject: @unchecked Sendable {
    public let path: String
    public let interfaces: [BusInterface]
    let handler: @Sendable (BusCall) -> Void
    let writeHandler: (@Sendable (BusPropertyWrite) throws(BusError) -> Void)?
    let engine: BusEngine
    private let values: Mutex<[String: [String: BusValue]]>
    // Bus thread only: the sd-bus slots and vtables, one per interface.
    var slots: [OpaquePointer] = []
    var vtables: [OpaquePointer] = []

    deinit {
        // Only memory by now: the slots were released on the bus thread and no call is pending.
        for table in vtables { sbs_vtable_free(table) }
    }

    init(
        engine: BusEngine, path: String, interfaces: [BusInterface], values: [String: [String: BusValue]],
        writeHandler: (@Sendable (BusPropertyWrite) throws(BusError) -> Void)?,
        handler: @escaping @Sendable (BusCall) -> Void
    ) {
        self.engine = engine
        self.path = path
        self.interfaces = interfaces
        self.values = Mutex(values)
        self.writeHandler = writeHandler
        self.handler = handler
    }

    /// The current value of a property.
    public func value(of property: String, in interface: String) -> BusValue? {
        values.withLock { $0[interface]?[property] }
    }

    /// Sets one property and announces it with PropertiesChanged if it changed.
    public func setProperty(_ name: String, of interface: String, to value: BusValue) throws(BusError) {
        try setProperties([name: value], of: interface)
    }

    /// Sets several properties of one interface; one PropertiesChanged carries those that changed.
    /// Throws InvalidArgs for an unknown or constant property or a value of the wrong type.
    public func setProperties(_ newValues: [String: BusValue], of interface: String) throws(BusError) {
        guard let description = interfaces.first(where: { $0.name == interface }) else {
            throw .invalidArgs("\(path) does not implement \(interface)")
        }
        // Only what changes is checked and stored: a refresh that sets every property of every
        // object, most of them as they were, costs one comparison for each of those.
        let changing = values.withLock { store in newValues.filter { store[interface]?[$0.key] != $0.value } }
        for (name, value) in changing {
            guard let property = description.property(named: name) else {
                throw .invalidArgs("\(interface) has no property \(name)")
            }
            guard property.changes != .constant else { throw .invalidArgs("\(interface).\(name) is constant") }
            guard value.signature == property.signature else {
                throw .invalidArgs("\(interface).\(name) is \"\(property.signature)\", not \"\(value.signature)\"")
            }
            try value.validate()
        }
        guard !changing.isEmpty else { return }
        values.withLock { store in
            for (name, value) in changing { store[interface, default: [:]][name] = value }
        }
        let changed = changing.keys.sorted()
        engine.enqueue { [self] engine in engine.emitPropertiesChanged(self, interface: interface, names: changed) }
    }

    /// Emits a signal declared by one of the object's interfaces (to every peer whose match rules
    /// select it).
    /// With `destination` (a peer's unique name) the signal is unicast to that peer only, e.g.
    /// a session's interruption to the connection that owns the session.
    public func emit(
        _ signal: String, of interface: String, _ arguments: [BusValue] = [], to destination: String? = nil
    ) throws(BusError) {
        guard let description = interfaces.first(where: { $0.name == interface })?.signal(named: signal) else {
            throw .invalidArgs("\(interface) has no signal \(signal)")
        }
        let signature = BusValue.signature(of: arguments)
        guard signature == description.signature else {
            throw .invalidArgs("\(interface).\(signal) takes \"\(description.signature)\", not \"\(signature)\"")
        }
        for argument in arguments { try argument.validate() }
        engine.enqueue { [self] engine in
            engine.emitSignal(self, interface: interface, member: signal, arguments: arguments, destination: destination)
        }
    }

    /// Stops serving the object, in order with this connection's other work (see
    /// ``BusConnection/flush()``). Calls already delivered can still be answered.
    public func remove() {
        let removed = engine.exportedPaths.withLock { $0.remove(path) != nil }
        guard removed else { return }
        engine.enqueue { [self] engine in engine.uninstall(self) }
    }

    /// Stores a value written through Properties.Set (already type-checked by sd-bus). Bus thread.
    func store(_ value: BusValue, for name: String, of interface: String) throws(BusError) {
        values.withLock { $0[interface, default: [:]][name] = value }
    }
}

/// A write to a `.readWrite` property, for the object's write handler to accept or refuse.
public struct BusPropertyWrite: Sendable {
    public let path: String
    public let interface: String
    public let name: String
    public let value: BusValue
    public let caller: BusCaller
}
