import Foundation
import PipeWireSandbox

/// A real SIP client, baresip, on loopback: each instance has its own configuration directory
/// and port, plays and records through ALSA's default device (PipeWire's ALSA plugin, from
/// pipewire-alsa; on a pure PulseAudio, ``PulseAudioWithALSA``'s pulse plugin), answers calls by itself, and calls another instance by its address.
final class RealSIP: @unchecked Sendable {
    let process: ManagedProcess
    let port: Int
    let directory: URL

    /// Starts baresip listening on 127.0.0.1:`port`; `calling` dials another instance at once.
    /// `binary` other than baresip runs a copy of it under that name: a call app the rules do
    /// not know, which the daemon can tell only by what its streams do.
    init(port: Int, calling other: Int? = nil, binary: String = "baresip", in sandbox: any AudioServerSandbox) throws {
        self.port = port
        directory = sandbox.directory.appendingPathComponent("baresip-\(port)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = """
            poll_method epoll
            sip_listen 127.0.0.1:\(port)
            audio_player alsa,default
            audio_source alsa,default
            audio_alert alsa,default
            audio_level no
            module_path /usr/lib/baresip/modules
            module g711.so
            module alsa.so
            module_app account.so
            module_app menu.so
            module_app debug_cmd.so

            """
        try config.write(to: directory.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        try "<sip:user\(port)@127.0.0.1:\(port)>;regint=0;answermode=auto;audio_codecs=PCMU\n"
            .write(to: directory.appendingPathComponent("accounts"), atomically: true, encoding: .utf8)
        var arguments = ["-f", directory.path]
        if let other { arguments += ["-e", "/dial sip:user\(other)@127.0.0.1:\(other)"] }
        var program = "baresip"
        if binary != program {
            let copy = directory.appendingPathComponent(binary)
            try FileManager.default.copyItem(atPath: "/usr/bin/baresip", toPath: copy.path)
            program = copy.path
        }
        process = try sandbox.spawn(program, arguments, extraEnvironment: ["HOME": directory.path])
    }

    deinit { stop() }

    func stop() { process.terminate() }
}
