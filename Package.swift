// swift-tools-version:6.1
// audiosession: an audio session manager for Linux (PipeWire session-manager peer).
import PackageDescription

let package = Package(
    name: "audiosession",
    products: [
        .executable(name: "audiosessiond", targets: ["audiosessiond"]),
        .executable(name: "audiosessionctl", targets: ["audiosessionctl"]),
        .library(name: "SessionPolicy", targets: ["SessionPolicy"]),
        .library(name: "PipeWireGraph", targets: ["PipeWireGraph"]),
        .library(name: "AudioSession", targets: ["AudioSession"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
    ],
    targets: [
        // --- C: only what Swift cannot reach ---------------------------------------------
        .systemLibrary(
            name: "CPipeWire", pkgConfig: "libpipewire-0.3",
            providers: [.apt(["libpipewire-0.3-dev", "libspa-0.2-dev"])]),
        .target(name: "PipeWireShim", dependencies: ["CPipeWire"]),
        // libpulse's headers, and the library loaded at run time (dlopen): see its header.
        .target(name: "CPulse"),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CMalloc"),
        .target(name: "SessionBusShim", dependencies: ["CSystemd"]),
        // The Swift runtime's global-executor hooks: the daemon runs its tasks on one quiet thread.
        .target(name: "GlobalExecutorHooks"),
        // D-Bus mechanism (sd-bus on its own thread): serve objects, call, subscribe. Decides nothing.
        .target(
            name: "SessionBus",
            dependencies: ["SessionBusShim", "CSystemd", .product(name: "Logging", package: "swift-log")],
            exclude: ["README.md"]),

        // --- Mechanism: the PipeWire graph, observed and acted on (decides nothing) --------
        .target(
            name: "PipeWireGraph",
            dependencies: [
                "PipeWireShim", .product(name: "Logging", package: "swift-log"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ]),

        // --- Mechanism: a PulseAudio server over libpulse, observed and acted on (decides nothing)
        .target(name: "PulseAudioServer", dependencies: ["CPulse", .product(name: "Logging", package: "swift-log")]),

        // --- Policy: every decision, pure Swift, no I/O, injected clock ---------------------
        .target(name: "SessionPolicy"),

        // --- Who an app is: processes, their ancestry and sandbox, read from /proc -----------
        .target(name: "AppProcesses", dependencies: ["SessionPolicy"]),

        // --- Rules: policy-rules/*.conf (SPA-JSON, read with libspa's JSON reader) -> policy config
        .target(name: "PolicyRules", dependencies: ["SessionPolicy", "CPipeWire"]),

        // --- The daemon: wires mechanism to policy -----------------------------------------
        .target(
            name: "AudioSessionDaemon",
            dependencies: [
                "PipeWireGraph", "PulseAudioServer", "SessionPolicy", "PolicyRules", "SessionBus", "GlobalExecutorHooks",
                "CMalloc", "AppProcesses", .product(name: "Logging", package: "swift-log"),
            ]),
        // A private, headless PipeWire with virtual devices and real clients: tests, demo, benchmarks.
        .target(name: "PipeWireSandbox", dependencies: ["PulseAudioServer", "AppProcesses", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "AudioSessionControl",
            dependencies: [
                "PipeWireGraph", "PolicyRules", "PipeWireSandbox", "PulseAudioServer", "AudioSession", "SessionBus",
                "AppProcesses", "AudioSessionVersion", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The app-facing Swift library: AVAudioSession's API over the D-Bus session API.
        .target(name: "AudioSession", dependencies: ["SessionBus", "SessionPolicy"]),

        // The release number, in one place: both command lines print it, the Makefile reads it.
        .target(name: "AudioSessionVersion"),

        // --- Thin executables ----------------------------------------------------------------
        .executableTarget(
            name: "audiosessiond",
            dependencies: [
                "AudioSessionDaemon", "SessionPolicy", "AudioSessionVersion",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(name: "audiosessionctl", dependencies: ["AudioSessionControl"]),
        // contrib/examples/SwiftPlayer: pauses on interruption, resumes on shouldResume.
        .executableTarget(
            name: "audiosession-example-player", dependencies: ["AudioSession"], path: "contrib/examples/SwiftPlayer"),

        // --- Tests -----------------------------------------------------------------------------
        .testTarget(
            name: "SessionPolicyTests",
            dependencies: [
                "SessionPolicy",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(name: "PolicyRulesTests", dependencies: ["PolicyRules", "PipeWireSandbox"]),
        .testTarget(name: "SessionBusTests", dependencies: ["SessionBus", "PipeWireSandbox"]),
        .testTarget(
            name: "PipeWireGraphTests",
            dependencies: ["PipeWireGraph", "PipeWireSandbox", "AppProcesses"]),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "AudioSessionDaemon", "AudioSessionControl", "PipeWireSandbox", "PipeWireGraph", "PulseAudioServer",
                "AppProcesses", "audiosessiond", "audiosessionctl",
            ]),
        .testTarget(
            name: "SessionServiceTests",
            dependencies: [
                "AudioSession", "AudioSessionControl", "SessionBus", "PipeWireSandbox", "audiosessiond", "audiosessionctl",
                "audiosession-example-player",
            ]),
    ]
)
