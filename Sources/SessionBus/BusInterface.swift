// BusInterface: an interface an exported object implements, described in Swift and turned into
// an sd-bus vtable, so introspection, Properties and Peer come from sd-bus itself.

/// A named, typed argument of a method or signal (the name shows in introspection).
public struct BusArgument: Sendable, Hashable {
    public var name: String
    /// One complete type.
    public var signature: String
    public init(_ name: String, _ signature: String) {
        self.name = name
        self.signature = signature
    }
}

/// A method: calls arrive as ``BusCall``s whose arguments already match `inputs`.
public struct BusMethod: Sendable, Hashable {
    public var name: String
    public var inputs: [BusArgument]
    public var outputs: [BusArgument]
    public init(_ name: String, inputs: [BusArgument] = [], outputs: [BusArgument] = []) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
    }
    var inputSignature: String { inputs.map(\.signature).joined() }
    var outputSignature: String { outputs.map(\.signature).joined() }
}

/// A property. Its value lives in the exported object (``BusObject/setProperty(_:of:to:)``).
public struct BusProperty: Sendable, Hashable {
    public enum Access: Sendable, Hashable {
        case read
        /// Writable through `org.freedesktop.DBus.Properties.Set`; the object's write handler decides.
        case readWrite
    }
    /// How changes are announced with `PropertiesChanged`.
    public enum ChangeNotification: Sendable, Hashable {
        /// The new value is sent in `changed_properties`.
        case emitsValue
        /// Only the name is sent in `invalidated_properties`.
        case invalidates
        /// Never changes after export.
        case constant
    }
    public var name: String
    public var signature: String
    public var access: Access
    public var changes: ChangeNotification
    public init(_ name: String, _ signature: String, access: Access = .read, changes: ChangeNotification = .emitsValue) {
        self.name = name
        self.signature = signature
        self.access = access
        self.changes = changes
    }
}

/// A signal an object may emit.
public struct BusSignalDescription: Sendable, Hashable {
    public var name: String
    public var arguments: [BusArgument]
    public init(_ name: String, arguments: [BusArgument] = []) {
        self.name = name
        self.arguments = arguments
    }
    var signature: String { arguments.map(\.signature).joined() }
}

/// A D-Bus interface: methods, properties and signals.
public struct BusInterface: Sendable, Hashable {
    public var name: String
    public var methods: [BusMethod]
    public var properties: [BusProperty]
    public var signals: [BusSignalDescription]
    public init(
        _ name: String, methods: [BusMethod] = [], properties: [BusProperty] = [],
        signals: [BusSignalDescription] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    func method(named name: String) -> BusMethod? { methods.first { $0.name == name } }
    func property(named name: String) -> BusProperty? { properties.first { $0.name == name } }
    func signal(named name: String) -> BusSignalDescription? { signals.first { $0.name == name } }

    /// Checks names and signatures (the D-Bus rules), so a bad description fails at export time.
    func validate() throws(BusError) {
        guard BusNames.isValidInterfaceName(name) else { throw .invalidArgs("invalid interface name \"\(name)\"") }
        var members = Set<String>()
        func member(_ memberName: String) throws(BusError) {
            guard BusNames.isValidMemberName(memberName) else {
                throw .invalidArgs("invalid member name \"\(memberName)\" in \(name)")
            }
            guard members.insert(memberName).inserted else {
                throw .invalidArgs("duplicate member \"\(memberName)\" in \(name)")
            }
        }
        func arguments(_ list: [BusArgument], of memberName: String) throws(BusError) {
            for argument in list where !BusNames.isSingleCompleteType(argument.signature)
                || !BusNames.isValidMemberName(argument.name)
            {
                throw .invalidArgs("invalid argument \(argument.name): \(argument.signature) of \(name).\(memberName)")
            }
        }
        for method in methods {
            try member(method.name)
            try arguments(method.inputs + method.outputs, of: method.name)
        }
        for property in properties {
            try member(property.name)
            guard BusNames.isSingleCompleteType(property.signature) else {
                throw .invalidArgs("invalid signature \"\(property.signature)\" of \(name).\(property.name)")
            }
        }
        for signal in signals {
            try member(signal.name)
            try arguments(signal.arguments, of: signal.name)
        }
    }
}
