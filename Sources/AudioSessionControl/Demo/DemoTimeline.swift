import Foundation

/// Prints the demo as a readable timeline: elapsed time, who acted, what happened.
final class DemoTimeline: Sendable {
    enum Actor: String {
        case pipewire = "PipeWire"
        case server = "pulse"
        case daemon = "daemon"
        case user = "user"
        case app = "app"
        case graph = "graph"
        case check = "check"
        case signal = "signal"
    }

    private let start = ContinuousClock.now
    private let lock = NSLock()

    func say(_ actor: Actor, _ text: String) {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let who = actor.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        let line = String(format: "%7.3fs  ", seconds) + "\(who)  \(text)\n"
        lock.withLock {
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }

    func note(_ text: String) {
        lock.withLock { FileHandle.standardOutput.write(Data("           \(text)\n".utf8)) }
    }

    func heading(_ text: String) {
        lock.withLock { FileHandle.standardOutput.write(Data("\n\(text)\n".utf8)) }
    }
}
