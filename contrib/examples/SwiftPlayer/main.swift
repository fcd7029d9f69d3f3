// A music player that behaves like a good iOS citizen (reference §9, "user-controlled playback"):
// playback category, non-mixable; pauses when interrupted, resumes only with shouldResume;
// answers the media keys while it is the current media player (`playerctl -p audiosession play-pause`).
//
//   swift run audiosession-example-player song.wav
//
// It plays FILE with `pw-cat` as a child process, so the stream joins this process's session by
// ancestry. "Pausing" stops the child and "resuming" starts it again (pw-cat has no pause).

import AudioSession
import Dispatch
import Foundation

@MainActor
final class Player {
    let file: String
    var child: Process?

    init(file: String) { self.file = file }

    func play() throws {
        guard child == nil else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pw-cat")
        process.arguments = ["-p", "--media-role", "Music", file]
        try process.run()
        child = process
        say("playing \(file) (pw-cat pid \(process.processIdentifier))")
    }

    func pause() {
        guard let child else { return }
        child.terminate()
        child.waitUntilExit()
        self.child = nil
        say("paused")
    }
}

/// Unbuffered, so a log reader sees each line as it happens.
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

let arguments = CommandLine.arguments.dropFirst()
guard let file = arguments.first else {
    FileHandle.standardError.write(Data("usage: audiosession-example-player FILE\n".utf8))
    exit(2)
}

let player = Player(file: file)
let session = AudioSession.shared
let interruptions = session.interruptions  // listen before activating: nothing is missed
let remoteCommands = session.remoteCommands

/// Kept alive for the whole run: a released signal source stops delivering.
nonisolated(unsafe) var signalSources: [any DispatchSourceSignal] = []
for signal in [SIGINT, SIGTERM] {
    Foundation.signal(signal, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
    source.setEventHandler {
        MainActor.assumeIsolated { player.pause() }
        exit(0)
    }
    source.resume()
    signalSources.append(source)
}

do {
    try await session.setCategory(.playback)
    try await session.setActive(true)
    say("session \(try await session.sessionID) active: \(try await session.category.wireName)")
    try player.play()
} catch {
    FileHandle.standardError.write(Data("audiosession-example-player: \(error)\n".utf8))
    exit(1)
}

// Media keys and headset buttons, forwarded by the daemon while this is the current media player.
Task { @MainActor in
    for await command in remoteCommands {
        say("remote command: \(command.rawValue)")
        switch command {
        // Playing again activates first: after an interruption that had no end (headphones
        // unplugged: routeDisconnected) the session is inactive and its audio held until then.
        case .play:
            try? await session.setActive(true)
            try? player.play()
        case .pause, .stop: player.pause()
        case .togglePlayPause:
            if player.child == nil {
                try? await session.setActive(true)
                try? player.play()
            } else {
                player.pause()
            }
        case .nextTrack, .previousTrack: say("one file: no other track")
        }
    }
}

for await interruption in interruptions {
    switch interruption.type {
    case .began:
        say("interruption began (\(interruption.reason.wireName))")
        player.pause()
    case .ended:
        let resume = interruption.options.contains(.shouldResume)
        say("interruption ended\(resume ? " shouldResume" : "")")
        if resume {
            do {
                try await session.setActive(true)
                try player.play()
                say("resumed")
            } catch {
                say("cannot resume: \(error)")
            }
        }
    }
}
