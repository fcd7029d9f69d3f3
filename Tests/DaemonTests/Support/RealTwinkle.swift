import Foundation
import PipeWireSandbox

/// A second real SIP phone, Twinkle (`twinkle -c`, its command-line mode), on loopback: each
/// instance has its own home, SIP and RTP ports, plays and records through ALSA's default device
/// (PipeWire's ALSA plugin; on a pure PulseAudio, ``PulseAudioWithALSA``'s pulse plugin), and
/// takes commands on its standard input (`call`, `answer`, `bye`).
final class RealTwinkle: CommandedPhone, @unchecked Sendable {
    let process: ManagedProcess
    let name: String
    let port: Int
    let commands: FileHandle
    /// Twinkle's own log: its SIP messages, its audio devices and what it did with each call.
    let logURL: URL
    /// The binary it runs (the shell started by ``init`` `exec`s it): what gdb reads a core with.
    let program: String

    /// Its RTP port's distance from its SIP port.
    static let rtpOffset = 930

    /// Starts Twinkle as user `name` listening on 127.0.0.1:`port` (RTP on `port + 930`), as
    /// the program `binary`: a copy of twinkle under another name is a call app the rules do not
    /// know. `playsRingback`: whether a call it makes plays its ring-back tone until answered.
    init(
        name: String, port: Int, binary: String = "twinkle", playsRingback: Bool = true, in sandbox: any AudioServerSandbox
    ) throws {
        self.name = name
        self.port = port
        let home = sandbox.directory.appendingPathComponent("twinkle-\(name)")
        let settings = home.appendingPathComponent(".twinkle")
        logURL = settings.appendingPathComponent("twinkle.log")
        try? FileManager.default.removeItem(at: home)
        try FileManager.default.createDirectory(at: settings, withIntermediateDirectories: true)
        try """
            dev_ringtone=alsa:default
            dev_speaker=alsa:default
            dev_mic=alsa:default
            sip_udp_port=\(port)
            rtp_port=\(port + Self.rtpOffset)
            start_user_profile=\(name)
            play_ringback=\(playsRingback ? "yes" : "no")

            """.write(to: settings.appendingPathComponent("twinkle.sys"), atomically: true, encoding: .utf8)
        try """
            user_name=\(name)
            user_domain=127.0.0.1
            register_at_startup=no
            nat_public_ip=127.0.0.1

            """.write(to: settings.appendingPathComponent("\(name).cfg"), atomically: true, encoding: .utf8)
        program = try ConsolePhone.program("/usr/bin/twinkle", as: binary, in: home)
        let fifo = try ConsolePhone.commandFIFO(in: home)
        process = try sandbox.spawn(
            "/bin/sh", ["-c", "exec \"$0\" -c -f \"$1\" --force < \"$2\"", program, name, fifo.path],
            extraEnvironment: ["HOME": home.path])
        // Read and write: the shell's open for reading waits for a writer, and with a reader of
        // our own a command sent after Twinkle quit stays in the pipe instead of raising SIGPIPE
        // in the test process.
        let descriptor = open(fifo.path, O_RDWR)
        guard descriptor >= 0 else { throw SandboxError.commandFailed("cannot open \(fifo.path): \(errno)") }
        commands = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    deinit { stop() }

    /// The end of Twinkle's log (its SIP messages and audio), for a failure's message.
    var log: String {
        let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? "(no log at \(logURL.path))"
        return log.split(separator: "\n", omittingEmptySubsequences: false).suffix(250).joined(separator: "\n")
    }

    /// What a failure's message says of this end: whether it still runs (or how it ended, with
    /// its threads' stacks after a crash), its console, then its log.
    var report: String {
        let state = process.isRunning ? "running" : process.describeEnd(program: program)
        return "\(name) (pid \(process.pid)): \(state)\n\(name)'s console:\n\(process.output)\n\(name)'s log:\n\(log)"
    }

    /// Two instances on free loopback ports, as `binary`, the callee answering by itself and the
    /// caller calling it: the call is on its way when this returns. `ringback`: whether the
    /// caller plays its ring-back tone until the callee answers.
    static func call(
        as binary: String, ringback: Bool = true, in sandbox: any AudioServerSandbox
    ) async throws -> (caller: RealTwinkle, callee: RealTwinkle) {
        let calleePort = LoopbackPorts.free(offsets: [0, rtpOffset])
        let callee = try RealTwinkle(name: "bob", port: calleePort, binary: binary, in: sandbox)
        let callerPort = LoopbackPorts.free(offsets: [0, rtpOffset], avoiding: [calleePort, calleePort + rtpOffset])
        let caller = try RealTwinkle(name: "alice", port: callerPort, binary: binary, playsRingback: ringback, in: sandbox)
        try await eventually("both phones are up:\n\(callee.report)\n\(caller.report)", timeout: .seconds(15)) {
            callee.process.output.contains("Twinkle>") && caller.process.output.contains("Twinkle>")
        }
        callee.send("auto_answer -a on")
        try await eventually("the callee answers by itself:\n\(callee.report)") { callee.process.output.contains("Auto answer enabled") }
        caller.send("call sip:bob@127.0.0.1:\(calleePort)")
        return (caller, callee)
    }
}
