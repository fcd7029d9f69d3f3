@testable import AudioSessionDaemon
import Foundation
import PipeWireSandbox
import Testing

/// The daemon's log lines: one line per record, a UTC timestamp with milliseconds on a
/// terminal or in a file, and under systemd (`JOURNAL_STREAM`) the syslog priority prefix
/// journald reads, with no timestamp (the journal stamps lines itself).
@Suite("audiosessiond log lines", .serialized)
struct DaemonLogTests {
    @Test func linesCarryAUTCTimestampWithMilliseconds() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--no-bus"])
        try daemon.waitForLog("attached to PipeWire")  // the line under test
        let line = try #require(daemon.log.split(separator: "\n").first { $0.contains("attached to PipeWire") })
        #expect(line.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info \[audiosessiond\] attached to PipeWire.*/) != nil, "\(line)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func underSystemdLinesCarryTheirPriorityAndNoTimestamp() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(
            in: sandbox, arguments: ["--no-bus", "--verbose"], environment: ["JOURNAL_STREAM": "8:12345"])
        try daemon.waitUntilReady()
        // A debug line follows the attach (the exported `default` metadata); wait for it
        // rather than race it.
        try daemon.waitForLog("Exported metadata")
        let lines = daemon.log.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("<6>[audiosessiond] attached to PipeWire") }, "\(lines.prefix(5))")
        #expect(lines.contains { $0.hasPrefix("<7>[") && $0.contains("Exported metadata") }, "debug lines are priority 7")
        #expect(try daemon.terminate() == 0)
    }

    /// Lines the reacting thread logs wait for the loop's next turn and go out in one write;
    /// another thread's lines go out at once meanwhile.
    @Test func aHoldingThreadsLinesGoOutTogetherOnReleaseAndOthersAtOnce() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let output = LogOutput(descriptor: ends[1])
        #expect(output.hold())
        #expect(!output.hold(), "one holder")
        output.write("first\n")
        output.write("second\n")
        let other = Thread { output.write("from another thread\n") }
        other.start()
        #expect(read(ends[0], count: 64) == "from another thread\n")
        output.release()
        #expect(read(ends[0], count: 64) == "first\nsecond\n", "one write, in order")
        output.write("after\n")
        close(ends[1])
        #expect(read(ends[0], count: 64) == "after\n")
    }

    private func read(_ descriptor: Int32, count: Int) -> String {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, count) }
        return String(decoding: buffer.prefix(max(0, got)), as: UTF8.self)
    }
}
