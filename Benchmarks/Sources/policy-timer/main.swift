// Release-mode timer for the policy engine: µs per event at 10 / 100 / 1000 sessions.
//   cd Benchmarks && swift run -c release policy-timer [events-per-measurement [workload [sessions]]]
import PolicyWorkloads

let eventsPerRun = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 200_000
let clock = ContinuousClock()

func microseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
}

/// Runs every selected workload and prints one line per workload and size.
func runAll() {
    print("workload             sessions   µs/event (median of 5)   decisions/event")
    let onlyKind = CommandLine.arguments.dropFirst(2).first.flatMap(Workload.Kind.init(rawValue:))
    let onlySessions = CommandLine.arguments.dropFirst(3).first.flatMap(Int.init)
    for kind in Workload.Kind.allCases where onlyKind == nil || onlyKind == kind {
        for sessions in [10, 100, 1000] where onlySessions == nil || onlySessions == sessions {
            let workload = Workload(kind, sessions: sessions)
            let events = kind == .callCycle || kind == .notificationDuck ? eventsPerRun / 10 : eventsPerRun
            for _ in 0..<min(events, 10_000) { _ = workload.step() }  // warm up
            var samples: [Double] = []
            var decisions = 0
            for _ in 0..<5 {
                decisions = 0
                let elapsed = clock.measure {
                    for _ in 0..<events { decisions &+= workload.step() }
                }
                samples.append(microseconds(elapsed) / Double(events))
            }
            let median = samples.sorted()[2]
            print(pad(kind.rawValue, 20), pad(String(sessions), 10), pad(format3(median), 24), format3(Double(decisions) / Double(events)))
        }
    }
}

runAll()

func pad(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}

func format3(_ value: Double) -> String {
    let scaled = (value * 1000).rounded() / 1000
    return String(scaled)
}
