/// The app a desktop started a process as: the systemd unit its launcher put it in,
/// `app-[<launcher>-]<id>-<random>.scope` or `app-[<launcher>-]<id>[@<random>].service`
/// (systemd's conventions for desktop environments, which xdg-desktop-portal reads to know a
/// host app). The id is the app's desktop file id, with any `-` of its own escaped (`\x2d`), so
/// the first `-` left ends the launcher. Flatpak's `app-flatpak-…` units are ``FlatpakAppID``'s.
public enum AppScope {
    /// The id of the innermost app unit in a `/proc/<pid>/cgroup` text, nil when there is none.
    public static func applicationID(inCgroup cgroup: String) -> String? {
        for line in cgroup.split(separator: "\n") {
            guard let path = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).last else { continue }
            for unit in path.split(separator: "/").reversed() {
                if let id = applicationID(ofUnit: unit) { return id }
            }
        }
        return nil
    }

    public static func applicationID(ofUnit unit: Substring) -> String? {
        guard unit.hasPrefix("app-") else { return nil }
        var rest = unit.dropFirst("app-".count)
        if rest.hasSuffix(".scope") {
            rest = rest.dropLast(".scope".count)
            guard let dash = rest.lastIndex(of: "-") else { return nil }
            rest = rest[..<dash]
        } else if rest.hasSuffix(".service") {
            rest = rest.dropLast(".service".count)
            if let at = rest.firstIndex(of: "@") { rest = rest[..<at] }
        } else {
            return nil
        }
        if rest.hasPrefix("flatpak-") { return nil }
        if let dash = rest.firstIndex(of: "-") { rest = rest[rest.index(after: dash)...] }
        let id = unescaped(rest)
        return id.isEmpty ? nil : id
    }

    /// systemd's unit name escaping undone: `\xNN` is the byte NN.
    static func unescaped(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.first {
            if byte == UInt8(ascii: "\\"), utf8.count >= 4, utf8.dropFirst().first == UInt8(ascii: "x"),
                let value = UInt8(String(decoding: utf8.dropFirst(2).prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(4)
            } else {
                bytes.append(byte)
                utf8 = utf8.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
