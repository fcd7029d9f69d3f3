import Foundation
import PipeWireSandbox

/// A third real SIP phone, linphone's console client `linphonec` (linphone-cli), on loopback:
/// each instance has its own home and configuration file (`-c`), SIP port on 127.0.0.1 (UDP
/// only) and RTP port, plays and records through ALSA's default device (PipeWire's ALSA plugin;
/// mediastreamer2 calls it "ALSA Unknown: default"), and takes commands on its standard input
/// (`call`, `terminate`, `quit`). Unlike baresip and Twinkle, it opens its microphone before its
/// speaker.
final class RealLinphone: CommandedPhone, @unchecked Sendable {
    let process: ManagedProcess
    let name: String
    let port: Int
    let commands: FileHandle
    private let logURL: URL

    /// Its RTP port's distance from its SIP port.
    static let rtpOffset = 1000

    /// Starts linphonec as user `name` listening on 127.0.0.1:`port` (RTP on `port + 1000`),
    /// answering every call by itself if `autoAnswer`, as the program `binary`: a copy of
    /// linphonec under another name is a call app the rules do not know.
    init(name: String, port: Int, autoAnswer: Bool = false, binary: String = "linphonec", in sandbox: any AudioServerSandbox) throws {
        self.name = name
        self.port = port
        let home = sandbox.directory.appendingPathComponent("linphone-\(name)")
        try? FileManager.default.removeItem(at: home)
        // Its call history and chat database (it complains at start without the directory).
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent(".local/share/linphone"), withIntermediateDirectories: true)
        let device = "ALSA Unknown: default"
        let configuration = home.appendingPathComponent("linphonerc")
        try """
            [sip]
            sip_port=\(port)
            sip_tcp_port=-1
            sip_tls_port=-1
            contact=sip:\(name)@127.0.0.1:\(port)
            guess_hostname=0
            use_ipv6=0
            default_proxy=-1

            [rtp]
            audio_rtp_port=\(port + Self.rtpOffset)
            video_rtp_port=\(port + 2000)

            [sound]
            playback_dev_id=\(device)
            ringer_dev_id=\(device)
            capture_dev_id=\(device)
            media_dev_id=\(device)
            echocancellation=0

            [video]
            enabled=0
            capture=0
            display=0
            automatically_initiate=0
            automatically_accept=0

            """.write(to: configuration, atomically: true, encoding: .utf8)
        let program = try ConsolePhone.program("/usr/bin/linphonec", as: binary, in: home)
        let fifo = try ConsolePhone.commandFIFO(in: home)
        // Its own log (mediastreamer2 says when it opens each PCM) goes to a file, for failures.
        logURL = home.appendingPathComponent("linphonec.log")
        process = try sandbox.spawn(
            "/bin/sh",
            ["-c", "exec \"$0\" -c \"$1\" -d 5 -l \"$2\" $3 < \"$4\"", program, configuration.path, logURL.path, autoAnswer ? "-a" : "", fifo.path],
            extraEnvironment: ["HOME": home.path])
        // Read and write: the shell's open for reading waits for a writer, and with a reader of
        // our own a command sent after linphonec quit stays in the pipe instead of raising
        // SIGPIPE in the test process.
        let descriptor = open(fifo.path, O_RDWR)
        guard descriptor >= 0 else { throw SandboxError.commandFailed("cannot open \(fifo.path): \(errno)") }
        commands = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    deinit { stop() }

    /// Whether it waits for commands (its prompt), its SIP port open.
    var isReady: Bool { process.output.contains("linphonec>") }

    /// What its log says of its sound devices (each PCM it opens, with the time).
    var audioLog: String {
        let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { $0.contains("alsa_open") || $0.contains("Card '") }.joined(separator: "\n")
    }

    /// The PCMs it opened, in the order it opened them (one thread opens both): "microphone" or
    /// "speaker".
    var openings: [String] {
        audioLog.split(separator: "\n").compactMap { line in
            line.contains("alsa_open_r: opening") ? "microphone" : line.contains("alsa_open_w: opening") ? "speaker" : nil
        }
    }
}
