import AppProcesses

/// What the scheduler did with the calling thread: its time on a CPU and its time runnable but
/// waiting for one (`/proc/thread-self/schedstat`). When a timer fires late, the two tell a
/// thread kept busy from one denied a CPU (a loaded machine) and from one blocked in the kernel
/// (neither grows).
struct ThreadSchedule: Equatable {
    var onCPU: Duration
    var waiting: Duration

    /// Now, for the calling thread; nil where the kernel keeps no schedule statistics.
    static func current() -> ThreadSchedule? {
        guard let text = ProcFile.text("/proc/thread-self/schedstat", limit: 128) else { return nil }
        let fields = text.split(separator: " ").prefix(2).compactMap { Int64($0) }
        guard fields.count == 2 else { return nil }
        return ThreadSchedule(onCPU: .nanoseconds(fields[0]), waiting: .nanoseconds(fields[1]))
    }

    /// What happened since `earlier`.
    func since(_ earlier: ThreadSchedule) -> ThreadSchedule {
        ThreadSchedule(onCPU: onCPU - earlier.onCPU, waiting: waiting - earlier.waiting)
    }
}
