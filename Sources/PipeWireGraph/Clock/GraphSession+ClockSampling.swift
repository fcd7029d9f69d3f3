import CPipeWire
import PipeWireShim

/// Sampling the drivers' clocks through the server's profiler (`libpipewire-module-profiler`,
/// what pw-top reads): bound on request and unbound as soon as the caller has its sample, since
/// while it is bound the server builds a profile every cycle and wakes us to send it.
extension GraphSession {
    func profilerAppeared(id: GlobalID, version: UInt32) {
        profilerGlobal = (id, version)
        mirror.profiler = id
    }

    func profilerRemoved() {
        stopSamplingClocks()
        profilerGlobal = nil
        mirror.profiler = nil
    }

    /// Binds the profiler; while bound, counts only cycles that begin from now on as fresh.
    func sampleClocks() {
        if let profiler {
            profiler.requestAgain()
            return
        }
        guard let registry, let global = profilerGlobal else {
            logger.debug("clock: the server has no profiler to sample")
            return
        }
        profiler = ProfilerProxy(session: self, registry: registry, global: global.id, serverVersion: global.version)
        if profiler == nil { logger.warning("Could not bind the profiler \(global.id)") }
    }

    /// Unbinds the profiler: no profile reaches us from now on. The proxy is destroyed once
    /// the current callback has returned (this may be its own `profile` event).
    func stopSamplingClocks() {
        guard let profiler else { return }
        self.profiler = nil
        profiler.stopListening()
        retiredProfilers.append(profiler)
        loopThread.enqueue { [self] in destroyRetiredProfilers() }
    }

    func destroyRetiredProfilers() {
        let profilers = retiredProfilers
        retiredProfilers = []
        for profiler in profilers { profiler.destroy() }
    }

    func profiled(by proxy: ProfilerProxy, _ pod: UnsafePointer<spa_pod>) {
        guard proxy === profiler else { return }
        let cycles = proxy.cycles(in: pod)
        guard !cycles.isEmpty else { return }
        emit(.clocksSampled(cycles))
    }
}
