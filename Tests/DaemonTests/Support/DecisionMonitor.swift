import Foundation
import PipeWireSandbox

/// `audiosessionctl monitor`, started and subscribed: from its first line on, it prints every
/// decision the daemon sends, in the order sent. A test that starts one just before what it
/// watches must wait for that (a monitor still starting misses what comes first).
struct DecisionMonitor {
    let process: ManagedProcess

    init(in sandbox: PrivatePipeWire, bus: PrivateSessionBus) throws {
        process = try sandbox.spawn(DaemonProcess.path(of: "audiosessionctl"), ["monitor"], extraEnvironment: bus.environment)
        let process = process
        try waitUntil(timeout: .seconds(10), "the monitor watches the daemon (it says: \(process.output) \(process.errorOutput))") {
            process.output.contains("watching audiosessiond")
        }
    }

    /// The kinds of the decisions seen so far, in order (`activated`, `headsetProfile`, ...).
    var kinds: [String] {
        process.output.split(separator: "\n").compactMap { line in
            guard let colon = line.range(of: ": ") else { return nil }
            let before = line[..<colon.lowerBound]
            guard before.hasSuffix("system") || before.split(separator: " ").dropLast().last == "session" else { return nil }
            return line[colon.upperBound...].split(separator: " ").first.map(String.init)
        }
    }

    func terminate() { process.terminate() }
}
