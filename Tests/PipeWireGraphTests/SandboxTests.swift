import AppProcesses
import Foundation
import PipeWireGraph
import PipeWireSandbox
import Testing

extension PipeWireIntegration {
    @Suite struct Sandbox {
        @Test func stopKillsEveryProcessItStarted() throws {
            var pids: [Int32] = []
            do {
                let sandbox = try PrivatePipeWire()
                let tone = try sandbox.testTone(seconds: 30)
                try sandbox.play(role: "Music", file: tone)
                try sandbox.paplay(role: "phone", file: tone)
                pids = sandbox.startedPIDs
                #expect(pids.count == 4, "pipewire, pipewire-pulse, pw-cat, paplay: \(pids)")
                #expect(pids.allSatisfy { kill($0, 0) == 0 })
                sandbox.stop()
                #expect(pids.allSatisfy(processIsGone))
                sandbox.stop()  // idempotent
            }
        }

        /// A child that crashes says where: its threads' backtraces from the core it dumped,
        /// and the core file is gone after (where the kernel writes cores into the working
        /// directory, as here; elsewhere the report says there was none).
        @Test(.enabled(if: Self.coresAreFilesHere, "the kernel's core_pattern does not write a plain core file here"))
        func aCrashedChildReportsItsThreadsFromItsCore() throws {
            ManagedProcess.allowCoreDumps()
            let directory = FileManager.default.temporaryDirectory
            let child = try ManagedProcess("/bin/sh", ["-c", "kill -SEGV $$"], environment: [:], logDirectory: directory)
            _ = try child.waitForExit(timeout: .seconds(10))
            #expect(child.exitStatus == 128 + SIGSEGV)
            let report = try #require(child.crashReport())
            print("crash report: \(report.prefix(300))")
            #expect(report.hasPrefix("signal 11") && report.contains("#0 "), "frames from the core: \(report)")
            #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/core"))
        }

        /// The kernel writes a crashed process's core as a plain file in its working directory
        /// (`core`, `core.%p`), not to a pipe (systemd-coredump, apport).
        static var coresAreFilesHere: Bool {
            let pattern = ((try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return pattern == "core" || pattern.hasPrefix("core.")
        }

        @Test func deinitStopsEverything() throws {
            var pids: [Int32] = []
            var directory: URL?
            do {
                let sandbox = try PrivatePipeWire()
                try sandbox.play(role: nil, file: sandbox.testTone(seconds: 30))
                pids = sandbox.startedPIDs
                directory = sandbox.directory
            }
            #expect(pids.count == 2)
            #expect(pids.allSatisfy(processIsGone))
            #expect(!FileManager.default.fileExists(atPath: try #require(directory).path))
        }

        @Test func clientsGetOnlyTheSandboxEnvironment() throws {
            let sandbox = try PrivatePipeWire(devices: [])
            let environment = sandbox.environment
            #expect(environment["XDG_RUNTIME_DIR"] == sandbox.runtimeDirectory.path)
            #expect(environment["PIPEWIRE_REMOTE"] == sandbox.socketPath)
            #expect(environment["DBUS_SESSION_BUS_ADDRESS"] == nil)
            #expect(environment["PULSE_SERVER"] == nil, "no pulse until asked for")
            try sandbox.startPulse()
            #expect(sandbox.environment["PULSE_SERVER"] == "unix:\(sandbox.pulseSocketPath)")
            // A client really reaches the private daemon: pw-dump lists its core, and only it.
            let dump = try sandbox.dump()
            #expect(dump.objects.contains { $0.type == "PipeWire:Interface:Core" })
            #expect(dump.node(named: "speaker") == nil, "no devices were asked for")
        }

        /// A real app is a client of the release under test where the host can load that
        /// release's libraries (a prefix: its libpipewire and ALSA plugin), and of Debian 12's
        /// where it cannot (the trixie root's need trixie's C library): read from the libraries
        /// an ALSA program has mapped while its stream plays.
        @Test func anALSAProgramLoadsTheClientSideOfTheStackItCanRun() throws {
            let sandbox = try PrivatePipeWire()
            let player = try sandbox.spawn("/usr/bin/aplay", ["-q", try sandbox.testTone(seconds: 30).path])
            try waitUntil(timeout: .seconds(10), "aplay's stream appears; aplay said: \(player.errorOutput)") {
                (try? sandbox.dump())?.nodes.contains { $0.mediaClass == "Stream/Output/Audio" } == true
            }
            let maps = try #require(ProcFile.text("/proc/\(player.pid)/maps", limit: 1 << 20))
            func mapped(_ library: String) -> Set<String> {
                Set(maps.split(separator: "\n").compactMap { line in
                    line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init).flatMap {
                        $0.hasSuffix("/\(library)") || $0.contains("/\(library).") ? $0 : nil
                    }
                })
            }
            let plugin = mapped("libasound_module_pcm_pipewire.so")
            let library = mapped("libpipewire-0.3.so")
            #expect(plugin.count == 1 && library.count == 1, "one plugin and one library: \(plugin), \(library)")
            let prefix = sandbox.installation.flatMap { $0.alsaPluginDirectory == nil ? nil : $0.prefix.standardizedFileURL.path + "/" }
            for path in plugin.union(library) {
                if let prefix {
                    #expect(path.hasPrefix(prefix), "\(path) is the release's, in \(prefix)")
                } else {
                    #expect(path.hasPrefix("/usr/lib/") || path.hasPrefix("/lib/"), "\(path) is the host's")
                }
            }
        }

        @Test func pulseClientsAppearWithTheirRole() throws {
            let harness = try GraphHarness()
            let player = try harness.sandbox.paplay(role: "phone", file: harness.sandbox.testTone(seconds: 30))
            let snapshot = try harness.waitForSnapshot("the paplay stream appears") { s in
                s.streams.contains { $0.properties["application.process.id"] == String(player.pid) }
            }
            let stream = try #require(snapshot.streams.first { $0.properties["application.process.id"] == String(player.pid) })
            #expect(stream.isPlaybackStream)
            #expect(stream.mediaRole?.lowercased() == "phone" || stream.mediaRole == "Communication")
        }

        @Test func testToneIsAValidWAVOfTheRequestedLength() throws {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("tone-\(UUID()).wav")
            defer { try? FileManager.default.removeItem(at: url) }
            _ = try TestTone.write(to: url, seconds: 2, sampleRate: 48_000, channels: 2)
            let data = try Data(contentsOf: url)
            #expect(data.count == 44 + 2 * 48_000 * 2 * 2)
            #expect(String(decoding: data[0..<4], as: UTF8.self) == "RIFF")
            #expect(String(decoding: data[8..<12], as: UTF8.self) == "WAVE")
            let info = try ManagedProcess.run(
                "soxi", ["-D", url.path], environment: ProcessInfo.processInfo.environment,
                logDirectory: FileManager.default.temporaryDirectory)
            #expect(info.trimmingCharacters(in: .whitespacesAndNewlines) == "2.000000")
        }

        @Test func waitUntilFailsWithAClearMessageAtItsDeadline() {
            #expect {
                try waitUntil(timeout: .milliseconds(30), "pigs fly") { false }
            } throws: { error in
                "\(error)".contains("waiting until pigs fly")
            }
        }

        /// A process that does not exit in time is described thread by thread (what a daemon
        /// stuck on SIGTERM was doing).
        @Test func aProcessThatDoesNotExitIsDescribedThreadByThread() throws {
            let sleeper = try ManagedProcess(
                "sleep", ["30"], environment: ProcessInfo.processInfo.environment,
                logDirectory: FileManager.default.temporaryDirectory)
            defer { sleeper.terminate() }
            #expect {
                try sleeper.waitForExit(timeout: .milliseconds(50))
            } throws: { error in
                "\(error)".contains("exits; its threads: \(sleeper.pid) 'sleep' S in ")
            }
        }

        /// The message is made at the deadline: what the condition saw last is in it (a log,
        /// "now …"), not what there was when the wait began.
        @Test func waitUntilsMessageSaysWhatWasSeenLast() {
            var polls = 0
            #expect {
                try waitUntil(timeout: .milliseconds(30), "pigs fly (polled \(polls) times)") {
                    polls += 1
                    return false
                }
            } throws: { error in
                polls > 1 && "\(error)".contains("(polled \(polls) times)")
            }
        }
    }
}
