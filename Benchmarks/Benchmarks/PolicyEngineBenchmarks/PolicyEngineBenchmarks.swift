import Benchmark
import PolicyWorkloads

/// Decision time per event, per workload, at 10 / 100 / 1000 sessions.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 50)

    for kind in Workload.Kind.allCases {
        for sessions in [10, 100, 1000] {
            Benchmark("\(kind.rawValue)/\(sessions) sessions (1000 events)") { benchmark in
                let workload = Workload(kind, sessions: sessions)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    blackHole(workload.step())
                }
                benchmark.stopMeasurement()
            }
        }
    }
}
