#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Blocks the calling thread until SIGINT or SIGTERM arrives, calling `onHangUp` for each SIGHUP.
///
/// The signals are ignored for the process's default handling and delivered through dispatch
/// sources, so PipeWire's loop thread never sees them.
enum TerminationSignal {
    static func wait(onHangUp: @escaping @Sendable () -> Void) -> String {
        let queue = DispatchQueue(label: "audiosessiond.signals")
        let received = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var name = ""
        var sources: [DispatchSourceSignal] = []
        for (number, label) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if number == SIGHUP { return onHangUp() }
                name = label
                received.signal()
            }
            source.resume()
            sources.append(source)
        }
        received.wait()
        let result = queue.sync { name }
        sources.forEach { $0.cancel() }
        return result
    }
}
