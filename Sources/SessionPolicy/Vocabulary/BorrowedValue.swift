/// A setting of the user's that the policy changes for a while and gives back: a stream's
/// volume under a duck, an input's gain, a card's route, a headset's profile, a default device,
/// a stream's mute. It holds the user's value, ours, and our earlier writes, and tells what the
/// server reports: our write coming back, or the user's — the one rule of whose a setting is,
/// for every place that borrows one.
///
/// The rule rests on one fact of every server here: it applies writes in the order they were
/// sent, and reports what it applied in that order (a report can lag, and a burst of changes can
/// come back as its last one only). So:
/// - before ours is reported, any other value the server reports was set before ours lands, and
///   ours will overwrite it: that value is the user's latest, the one to give back (if the
///   server folded ours into a later report, the user's value is still the right one to end on);
/// - once ours is reported, any other value is the user's change since, and theirs wins:
///   nothing is written or given back over it.
///
/// Our earlier writes are kept (a bounded number) and their reports are ours, whenever they
/// come: a ramp writes a step every 10 ms, and a server that answers late must not make a step
/// of ours look like the user's.
///
/// Its rule is inlinable: a ramp reads a report of every stream at every step, and a generic
/// call from the daemon's module, unspecialized, walks the earlier writes through value
/// witnesses; inlined, it is specialized for each value type.
public struct BorrowedValue<Value: Sendable>: Sendable {
    /// The user's value: what is given back.
    @inlinable public var users: Value { storedUsers }
    /// What we wrote last.
    @inlinable public var ours: Value { storedOurs }
    /// The server reported `ours` since we wrote it.
    @inlinable public var isOursReported: Bool { storedIsOursReported }

    @usableFromInline var storedUsers: Value
    @usableFromInline var storedOurs: Value
    @usableFromInline var storedIsOursReported = false
    /// Our writes before `ours`, oldest first.
    @usableFromInline var earlier: [Value] = []
    @usableFromInline let earlierKept: Int
    @usableFromInline let matches: @Sendable (Value, Value) -> Bool

    /// How many earlier writes are remembered by default (a 500 ms ramp is 50 steps).
    @inlinable public static var earlierLimit: Int { 128 }

    /// Borrowed from `users` (what the server last reported) to write `ours`; `matches` tells
    /// whether a reported value is one written (a volume control rounds). Where `users` already
    /// is `ours`, nothing is to be written and ours counts as reported.
    ///
    /// `earlierKept` is how many earlier writes stay ours. A setting of two values (a mute)
    /// keeps none: after two writes both values would be ours, and the user's own change
    /// could never be told.
    @inlinable public init(
        users: Value, ours: Value, keepingEarlier earlierKept: Int = Self.earlierLimit,
        matching matches: @escaping @Sendable (Value, Value) -> Bool
    ) {
        storedUsers = users
        storedOurs = ours
        self.earlierKept = earlierKept
        self.matches = matches
        storedIsOursReported = matches(ours, users)
    }

    /// What a run before this one left (its journal): ours was written long ago, so whatever
    /// the server has now is what it applied since.
    @inlinable public static func left(users: Value, ours: Value, matching matches: @escaping @Sendable (Value, Value) -> Bool) -> Self {
        var left = Self(users: users, ours: ours, matching: matches)
        left.storedIsOursReported = true
        return left
    }

    /// What a report from the server means.
    public enum Report: Equatable, Sendable {
        /// A write of ours coming back.
        case ours
        /// The user's own value, before ours was reported: ours is on its way (or the server
        /// folded its report into this one, as PipeWire does when a stream applies its own
        /// volume again right after ours).
        case usersStill
        /// A new value, set before ours lands (ours overwrites it): it is now the user's value,
        /// and what is given back.
        case usersBeforeOurs
        /// The user's own value again, after ours landed: a stream that applies its own volume
        /// again over ours, or a user who picked back what they had.
        case usersAgain
        /// Another value, after ours landed: the user changed it since, and theirs wins.
        case usersChange
    }

    /// Ours is now `value` (a ramp's next step, another session's wish, or — giving back — the
    /// user's value itself).
    @inlinable public mutating func write(_ value: Value) {
        earlier.append(storedOurs)
        if earlier.count > earlierKept { earlier.removeFirst(earlier.count - earlierKept) }
        storedOurs = value
        storedIsOursReported = false
    }

    /// The server reports `value`.
    @inlinable public mutating func reported(_ value: Value) -> Report {
        if matches(value, storedOurs) {
            storedIsOursReported = true
            return .ours
        }
        if earlier.contains(where: { matches(value, $0) }) { return .ours }
        if matches(value, storedUsers) { return storedIsOursReported ? .usersAgain : .usersStill }
        guard !storedIsOursReported else { return .usersChange }
        storedUsers = value
        return .usersBeforeOurs
    }

    /// Whether the user's value may be written over `current` (what the server reports now):
    /// while ours is on its way (it would land after, and stay), or where the value is ours or
    /// the user's own. Never over a change of the user's.
    @inlinable public func mayGiveBack(over current: Value) -> Bool {
        !isOursReported || matches(current, ours) || matches(current, users) || earlier.contains { matches(current, $0) }
    }

    /// The write of ours that `value` is a report of, the latest such (a server that keeps its
    /// own steps reports what we wrote as the step it became): nil for a value of the user's.
    @inlinable public func write(reportedAs value: Value) -> Value? {
        matches(value, ours) ? ours : earlier.last { matches(value, $0) }
    }

    /// Whether `value` is ours: our last write or an earlier one, not the user's own (what a
    /// crashed run's entry gives back only over).
    @inlinable public func isOurs(_ value: Value) -> Bool {
        !matches(value, users) && (matches(value, ours) || earlier.contains { matches(value, $0) })
    }

    /// Reads a report while the user's value is being given back (written as ours): whether
    /// that is over — it landed, or the user changed the setting since.
    @inlinable public mutating func givingBackEnds(with value: Value) -> Bool {
        let report = reported(value)
        return isGivenBack || report == .usersAgain || report == .usersChange
    }

    /// We wrote the user's value, and the server reported it: nothing of ours is left.
    @inlinable public var isGivenBack: Bool { isOursReported && matches(ours, users) }
}

extension BorrowedValue where Value: Equatable {
    /// Borrowed from `users` to write `ours`, told apart by equality.
    @inlinable public init(users: Value, ours: Value, keepingEarlier earlierKept: Int = Self.earlierLimit) {
        self.init(users: users, ours: ours, keepingEarlier: earlierKept, matching: ==)
    }

    /// What a run before this one left, told apart by equality.
    @inlinable public static func left(users: Value, ours: Value) -> Self {
        left(users: users, ours: ours, matching: ==)
    }
}
