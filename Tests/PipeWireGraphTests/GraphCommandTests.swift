import Foundation
import PipeWireGraph
import PipeWireSandbox
import Testing

extension PipeWireIntegration {
    /// `audiosessionctl graph`, run as a real process against a private PipeWire.
    @Suite struct GraphCommand {
        /// The binary SwiftPM built next to this test bundle.
        static var audiosessionctl: String {
            get throws {
                var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                for _ in 0..<4 {
                    let candidate = directory.appendingPathComponent("audiosessionctl").path
                    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                    directory.deleteLastPathComponent()
                }
                throw SandboxError.missingExecutable("audiosessionctl next to \(CommandLine.arguments[0]) (run `swift build` first)")
            }
        }

        @Test func jsonListsNodesWithRolesAndLinks() throws {
            let harness = try GraphHarness()
            let (player, stream, speaker) = try harness.playLinkedStream()

            let output = try harness.sandbox.run(Self.audiosessionctl, ["graph", "--json"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
            let sinks = try #require(json["sinks"] as? [[String: Any]])
            #expect(Set(sinks.compactMap { $0["name"] as? String }) == ["speaker", "headphones"])
            let sources = try #require(json["sources"] as? [[String: Any]])
            #expect(sources.compactMap { $0["name"] as? String } == ["mic"])
            let streams = try #require(json["streams"] as? [[String: Any]])
            let entry = try #require(streams.first { ($0["id"] as? NSNumber)?.uint32Value == stream.id })
            #expect(entry["role"] as? String == "Music")
            #expect(entry["application"] as? String == "pw-cat")
            #expect((entry["processID"] as? NSNumber)?.int32Value == player.pid)
            #expect(entry["linkedTo"] as? [String] == ["speaker"])
            #expect(entry["state"] as? String != nil)
            let links = try #require(json["links"] as? [[String: Any]])
            let ours = links.filter { ($0["outputNode"] as? NSNumber)?.uint32Value == stream.id }
            #expect(ours.count == 2)
            #expect(ours.allSatisfy { $0["inputNodeName"] as? String == "speaker" })
            #expect(ours.allSatisfy { ($0["inputNode"] as? NSNumber)?.uint32Value == speaker.id })

            let text = try harness.sandbox.run(Self.audiosessionctl, ["graph"])
            #expect(text.contains("Streams:"))
            #expect(text.contains("role=Music"))
            #expect(text.contains("→ speaker"))
        }

        @Test func withoutPipeWireSaysSoInOneLine() throws {
            let sandbox = try PrivatePipeWire(devices: [])
            sandbox.stopDaemon()
            let process = try ManagedProcess(
                Self.audiosessionctl, ["graph", "--json"], environment: sandbox.environment,
                logDirectory: sandbox.logDirectory)
            let status = try process.waitForExit(timeout: .seconds(10))
            #expect(status != 0)
            #expect(process.output.isEmpty, "no half JSON on stdout")
            let lines = process.errorOutput.split(separator: "\n")
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.contains("PipeWire is not running") == true)
            #expect(lines.first?.contains(sandbox.socketPath) == true)
        }
    }
}
