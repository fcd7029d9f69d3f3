import Foundation

/// Why the demo stopped: each says what to do or shows what the daemon said.
enum DemoError: Error, CustomStringConvertible {
    case daemonFailed(status: Int32, log: String)
    case stepFailed(String, log: String)
    case daemonNotFound(String)
    case missingTools([String])

    var description: String {
        switch self {
        case .daemonFailed(let status, let log): "audiosessiond exited with status \(status); its log:\n\(log)"
        case .stepFailed(let step, let log): "\(step)\naudiosessiond's log:\n\(log)"
        case .daemonNotFound(let path): "cannot find audiosessiond (looked at \(path) and in PATH); run `make build` first"
        case .missingTools(let tools):
            "the demo needs \(tools.joined(separator: ", ")): not installed here; run scripts/install-deps.sh (make deps)"
        }
    }
}
