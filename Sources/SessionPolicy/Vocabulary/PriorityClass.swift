/// A priority class, as Android and WirePlumber have: calls outrank media, alarms and
/// emergencies outrank calls. Rules may define new classes or tune these.
///
/// Classes compare by `priority` only; `name` is how rules and the CLI refer to them.
public struct PriorityClass: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Wire name (`media`, `communication`, or any name a rules file defines).
    public var name: String
    /// Higher wins.
    public var priority: Int
    /// What an active session of this class does to sessions of lower classes.
    public var towardLower: Interaction
    /// What a newer activation of this class does to an older one of the same class
    /// when the profile does not impose AVAudioSession's own rule (see `EqualClassRule`).
    public var towardEqual: Interaction

    public init(name: String, priority: Int, towardLower: Interaction, towardEqual: Interaction = .mix) {
        self.name = name
        self.priority = priority
        self.towardLower = towardLower
        self.towardEqual = towardEqual
    }

    public static func < (lhs: PriorityClass, rhs: PriorityClass) -> Bool {
        lhs.priority != rhs.priority ? lhs.priority < rhs.priority : lhs.name < rhs.name
    }

    public var description: String { "\(name)(\(priority))" }

    /// System alerts (notification sounds): what `prefersNoInterruptionsFromSystemAlerts` keeps
    /// away and a recording silences.
    public var isSystemAlert: Bool { name == Self.notification.name }

    /// Music, video, games. Priority 10.
    public static let media = PriorityClass(name: "media", priority: 10, towardLower: .mix, towardEqual: .mix)
    /// Notification sounds: duck media. Priority 20.
    public static let notification = PriorityClass(name: "notification", priority: 20, towardLower: .duck, towardEqual: .mix)
    /// Navigation prompts: duck what is below. Priority 30.
    public static let navigation = PriorityClass(name: "navigation", priority: 30, towardLower: .duck, towardEqual: .mix)
    /// Voice assistants: interrupt what is below. Priority 40.
    public static let assistant = PriorityClass(name: "assistant", priority: 40, towardLower: .interrupt, towardEqual: .interrupt)
    /// Calls: interrupt what is below; two calls both stay heard. Priority 50.
    public static let communication = PriorityClass(name: "communication", priority: 50, towardLower: .interrupt, towardEqual: .mix)
    /// Alarms: outrank calls. Priority 100.
    public static let alarm = PriorityClass(name: "alarm", priority: 100, towardLower: .interrupt, towardEqual: .mix)
    /// Emergency alerts: outrank everything. Priority 110.
    public static let emergency = PriorityClass(name: "emergency", priority: 110, towardLower: .interrupt, towardEqual: .mix)

    /// The built-in classes, lowest first.
    public static let builtIn: [PriorityClass] = [.media, .notification, .navigation, .assistant, .communication, .alarm, .emergency]
}
