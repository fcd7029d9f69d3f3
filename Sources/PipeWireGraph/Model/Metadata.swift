/// A metadata object: subject/key/value store (`default`, `settings`, ...).
public struct Metadata: Sendable, Equatable, Identifiable {
    public var id: GlobalID
    /// `metadata.name`.
    public var name: String
    public var properties: [String: String]
    /// In arrival order; at most one entry per (subject, key).
    public var entries: [MetadataEntry]

    public init(id: GlobalID, name: String, properties: [String: String] = [:], entries: [MetadataEntry] = []) {
        self.id = id
        self.name = name
        self.properties = properties
        self.entries = entries
    }

    public func entry(for key: String, subject: GlobalID = 0) -> MetadataEntry? {
        entries.first { $0.subject == subject && $0.key == key }
    }

    public func value(for key: String, subject: GlobalID = 0) -> String? {
        entry(for: key, subject: subject)?.value
    }

    /// Applies one `property` event: nil `key` clears the subject, nil `value` removes the key.
    mutating func apply(subject: GlobalID, key: String?, type: String?, value: String?) {
        guard let key else {
            entries.removeAll { $0.subject == subject }
            return
        }
        let index = entries.firstIndex { $0.subject == subject && $0.key == key }
        switch (index, value) {
        case (let index?, let value?): entries[index] = MetadataEntry(subject: subject, key: key, type: type, value: value)
        case (let index?, nil): entries.remove(at: index)
        case (nil, let value?): entries.append(MetadataEntry(subject: subject, key: key, type: type, value: value))
        case (nil, nil): break
        }
    }
}

public struct MetadataEntry: Sendable, Equatable {
    public var subject: GlobalID
    public var key: String
    /// e.g. `Spa:String:JSON`; nil for plain strings.
    public var type: String?
    public var value: String

    public init(subject: GlobalID, key: String, type: String? = nil, value: String) {
        self.subject = subject
        self.key = key
        self.type = type
        self.value = value
    }
}
