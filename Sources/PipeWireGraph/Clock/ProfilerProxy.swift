import CPipeWire
#if canImport(Glibc)
import Glibc
#endif
import PipeWireShim

/// Our binding of the server's profiler while the clocks are sampled. Binding it is what makes
/// the server profile every driver cycle and send the profiles to us, so it lives only as long
/// as a sample is wanted (``GraphSession/sampleClocks()``).
///
/// Loop-thread only; the hook is heap-allocated once and removed before the proxy is destroyed
/// (pitfall 5).
final class ProfilerProxy {
    private let proxy: OpaquePointer
    private let hook: UnsafeMutablePointer<spa_hook>
    private var destroyed = false
    /// Monotonic nanoseconds of the latest request: cycles that began before it may predate
    /// the change that prompted it (``DriverCycle/isFresh``).
    private var requestedAt: Int64 = 0
    unowned let session: GraphSession

    init?(session: GraphSession, registry: OpaquePointer, global: GlobalID, serverVersion: UInt32) {
        guard let proxy = pws_registry_bind(registry, global, pws_type_profiler, min(pws_version_profiler, serverVersion))
        else { return nil }
        self.proxy = proxy
        self.session = session
        hook = .allocate(capacity: 1)
        hook.initialize(to: spa_hook())
        _ = pws_profiler_add_listener(proxy, hook, EventTables.profiler, Unmanaged.passUnretained(self).toOpaque())
        requestAgain()
    }

    /// A new reason to sample: only cycles that begin from now on count as fresh.
    func requestAgain() { requestedAt = monotonicNanoseconds() }

    /// One profile's cycles, each marked fresh or not.
    func cycles(in pod: UnsafePointer<spa_pod>) -> [DriverCycle] {
        let collector = CycleCollector(requestedAt: requestedAt, now: monotonicNanoseconds())
        withExtendedLifetime(collector) {
            _ = pws_parse_profile(pod, { data, cycle in
                guard let data, let cycle else { return }
                Unmanaged<CycleCollector>.fromOpaque(data).takeUnretainedValue().take(cycle.pointee)
            }, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.cycles
    }

    /// No more events reach us; the proxy stays until ``destroy()``.
    func stopListening() { detachHook(hook) }

    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        detachHook(hook)
        pw_proxy_destroy(proxy)
    }

    deinit {
        hook.deinitialize(count: 1)
        hook.deallocate()
    }
}

/// Turns the parser's callbacks into cycles, copying what points into the pod at once.
private final class CycleCollector {
    let requestedAt: Int64
    let now: Int64
    var cycles: [DriverCycle] = []

    init(requestedAt: Int64, now: Int64) {
        self.requestedAt = requestedAt
        self.now = now
    }

    func take(_ cycle: pws_driver_cycle) {
        cycles.append(DriverCycle(
            driver: cycle.driver_id, driverName: cycle.driver_name.map { String(cString: $0) } ?? "",
            sampleRate: cycle.rate_num > 0 ? Int(cycle.rate_denom / cycle.rate_num) : 0,
            quantum: Int(max(0, cycle.duration)),
            followers: Array(UnsafeBufferPointer(start: cycle.followers, count: Int(cycle.n_followers))),
            isFresh: isFresh(began: cycle.nsec)))
    }

    /// A cycle that began after the request, or on a clock that is not ours (more than ten
    /// seconds away from our monotonic time: it cannot be compared, so it is trusted).
    private func isFresh(began: Int64) -> Bool {
        began >= requestedAt || abs(now - began) > 10_000_000_000
    }
}
