import SessionPolicy

/// One `{ matches = [ ... ] actions = { port-type = usbAudio } }` of `audiosession.port-rules`:
/// the port type of the sinks and sources it matches (their node properties over their
/// device's: `node.name`, `device.bus`, `device.form-factor`, `api.bluez5.profile`, ...), for
/// hardware the daemon's own typing gets wrong (a USB DAC that says it is a headset, a monitor
/// that is really the living-room speakers).
public struct PortRule: Hashable, Sendable {
    public var matches: [MatchClause]
    public var type: PortType
    public var origin: RuleReference

    public init(matches: [MatchClause], type: PortType, origin: RuleReference) {
        self.matches = matches
        self.type = type
        self.origin = origin
    }

    init(_ value: SPAJSONValue, file: String) throws(FormatProblem) {
        guard let members = value.members else {
            throw FormatProblem(value.line, "a port rule must be an object with matches and actions, found \(value.typeDescription)")
        }
        var matches: [MatchClause]?
        var type: PortType?
        for member in members {
            switch member.key {
            case "matches": matches = try ClassificationRule.clauses(member.value)
            case "actions": type = try Self.portType(member.value)
            default:
                throw FormatProblem(member.line, "unknown key '\(member.key)' in a port rule (known: matches, actions)")
            }
        }
        guard let matches else { throw FormatProblem(value.line, "port rule has no 'matches'") }
        guard let type else { throw FormatProblem(value.line, "port rule has no 'actions'") }
        self.init(matches: matches, type: type, origin: RuleReference(file: file, line: value.line))
    }

    private static func portType(_ value: SPAJSONValue) throws(FormatProblem) -> PortType {
        guard let members = value.members else {
            throw FormatProblem(value.line, "actions expects an object, found \(value.typeDescription)")
        }
        var type: PortType?
        for member in members {
            guard member.key == "port-type" else {
                throw FormatProblem(member.line, "unknown action '\(member.key)' in a port rule (known: port-type)")
            }
            type = try member.value.wireNamed(PortType.self, what: "port type")
        }
        guard let type else { throw FormatProblem(value.line, "actions has no 'port-type'") }
        return type
    }
}
