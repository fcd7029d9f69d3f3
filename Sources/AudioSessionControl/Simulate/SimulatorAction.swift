/// One thing a developer makes happen to the app under `simulate`: what the guide says Apple's
/// Simulator cannot do, typed at the prompt or read from a script, one per line.
enum SimulatorAction: Equatable {
    case call(Bool)
    case headphones(Bool)
    case usb(Bool)
    case silentMode(Bool)
    case screenLocked(Bool)
    case sleep(Bool)
    case mediaServicesReset
    case notification
    case music(Bool)
    case wait(Duration)
    case status
    case history
    case help
    case quit

    /// Words, synonyms and what each does: the help text and the parser share it.
    static let vocabulary: [(words: String, meaning: String)] = [
        ("call start | call end", "another app's call begins (a Communication stream) / ends"),
        ("headphones in | headphones out", "a headset is plugged into the sound card's jack / pulled out"),
        ("usb in | usb out", "a USB DAC comes (last in wins) / goes"),
        ("silent on | silent off", "the silent switch (SetSilentMode)"),
        ("lock | unlock", "the screen locks / unlocks (logind's LockedHint)"),
        ("sleep | wake", "the machine suspends / resumes (logind's PrepareForSleep)"),
        ("services reset", "PipeWire restarts: media services are lost, then reset"),
        ("notification", "a one-second notification sound"),
        ("music start | music stop", "another app's music plays / stops"),
        ("wait SECONDS", "let the app run (scripts)"),
        ("status", "the daemon's sessions (audiosessionctl status)"),
        ("history", "the commands so far"),
        ("help", "this list"),
        ("quit", "stop everything and exit (also Ctrl-D, Ctrl-C)"),
    ]

    /// Parses one line; nil for a blank line or a comment (`#`).
    static func parse(_ line: String) throws -> SimulatorAction? {
        let words = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first?
            .split(whereSeparator: \.isWhitespace).map { $0.lowercased() } ?? []
        guard let first = words.first else { return nil }
        let second = words.count > 1 ? words[1] : nil
        func onOff(_ on: Set<String>, _ off: Set<String>) throws -> Bool {
            if let second, on.contains(second) { return true }
            if let second, off.contains(second) { return false }
            throw SimulatorError.unknownCommand(line, hint: "say \(first) \(on.sorted().first!) or \(first) \(off.sorted().first!)")
        }
        switch first {
        case "call": return .call(try onOff(["start", "begin", "in"], ["end", "stop", "hangup"]))
        case "headphones", "headset": return .headphones(try onOff(["in", "plug"], ["out", "unplug"]))
        case "usb": return .usb(try onOff(["in", "plug"], ["out", "unplug"]))
        case "silent": return .silentMode(try onOff(["on"], ["off"]))
        case "lock": return .screenLocked(true)
        case "unlock": return .screenLocked(false)
        case "sleep": return .sleep(true)
        case "wake": return .sleep(false)
        case "services", "media-services":
            guard second == "reset" || second == "lost" else {
                throw SimulatorError.unknownCommand(line, hint: "say services reset")
            }
            return .mediaServicesReset
        case "notification", "notify": return .notification
        case "music": return .music(try onOff(["start", "play", "on"], ["stop", "off"]))
        case "wait":
            guard let second, let seconds = Double(second), seconds >= 0, seconds <= 3600 else {
                throw SimulatorError.unknownCommand(line, hint: "say wait SECONDS (0…3600)")
            }
            return .wait(.milliseconds(Int(seconds * 1000)))
        case "status": return .status
        case "history": return .history
        case "help", "?": return .help
        case "quit", "exit", "q": return .quit
        default: throw SimulatorError.unknownCommand(line, hint: "type help for the list")
        }
    }

    static var helpText: String {
        let width = vocabulary.map(\.words.count).max() ?? 0
        return vocabulary.map { "  \($0.words.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.meaning)" }
            .joined(separator: "\n")
    }
}

enum SimulatorError: Error, CustomStringConvertible {
    case unknownCommand(String, hint: String)
    case missingTools([String])
    case appNotFound(String)
    case setupFailed(String)

    var description: String {
        switch self {
        case .unknownCommand(let line, let hint): "not a command: '\(line)' (\(hint))"
        case .missingTools(let tools): "simulate needs \(tools.joined(separator: ", ")): install them (scripts/install-apps.sh)"
        case .appNotFound(let app): "no program '\(app)' in PATH"
        case .setupFailed(let what): "could not set up the simulated desktop: \(what)"
        }
    }
}
