// swift-tools-version:6.1
// Benchmarks of the policy engine, kept out of the root package so `make test` never builds them.
//   cd Benchmarks && swift package benchmark            (ordo-one/benchmark)
//   cd Benchmarks && swift run -c release policy-timer  (plain release-mode timer, same workloads)
import PackageDescription

let package = Package(
    name: "audiosession-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "audiosession", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(name: "PolicyWorkloads", dependencies: [.product(name: "SessionPolicy", package: "audiosession")]),
        .executableTarget(
            name: "PolicyEngineBenchmarks",
            dependencies: ["PolicyWorkloads", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/PolicyEngineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        .executableTarget(name: "policy-timer", dependencies: ["PolicyWorkloads"]),
    ]
)
